"""MCP053 ctx-log-message-kw: `ctx.log(level=..., message=...)` / `ctx.info(message=..., extra=...)` -> `data=`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP053", """
        from mcp.server.fastmcp import Context
        async def tool(ctx: Context) -> None:
            await ctx.info(message="hi")
        """, """
        from mcp.server.fastmcp import Context
        async def tool(ctx: Context) -> None:
            await ctx.info(data="hi")
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "import logging\nlog = logging.getLogger()\nlog.info(msg='x')\ndef f(ctx):\n    ctx.info(message='x')\n",
]


class TestMCP053(RuleTests):
    rule = "MCP053"
    cases = CASES
    negative = NEGATIVE

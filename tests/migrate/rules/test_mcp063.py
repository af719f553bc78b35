"""MCP063 elicit-requested-schema-kw: `session.elicit(..., requestedSchema=...)` -> `requested_schema=`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP063", """
        from mcp.server.fastmcp import Context
        async def tool(ctx: Context) -> None:
            await ctx.session.elicit("q", requestedSchema={"type": "object"})
        """, """
        from mcp.server.fastmcp import Context
        async def tool(ctx: Context) -> None:
            await ctx.session.elicit("q", requested_schema={"type": "object"})
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(form):\n    form.elicit(requestedSchema={})\n",
]


class TestMCP063(RuleTests):
    rule = "MCP063"
    cases = CASES
    negative = NEGATIVE

"""MCP043 ctx-fastmcp-property: `ctx.fastmcp` -> `ctx.mcp_server` (and `ctx._fastmcp` -> `ctx._mcp_server`)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP043", """
        from mcp.server.fastmcp import Context
        def tool(ctx: Context) -> str:
            return ctx.fastmcp.name
        """, """
        from mcp.server.fastmcp import Context
        def tool(ctx: Context) -> str:
            return ctx.mcp_server.name
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(ctx):\n    return ctx.fastmcp\n",
]


class TestMCP043(RuleTests):
    rule = "MCP043"
    cases = CASES
    negative = NEGATIVE

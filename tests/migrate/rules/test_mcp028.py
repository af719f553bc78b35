"""MCP028 get-context-removed: `mcp.get_context()` -> injected `ctx: Context` parameter."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP028", """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP('x')
        @mcp.tool()
        def t() -> str:
            return mcp.get_context().request_id
        @mcp.prompt()
        async def p(topic: str = "x") -> str:
            ctx = mcp.get_context()
            await ctx.info(topic)
            return topic
        """, """
        from mcp.server.fastmcp import FastMCP
        from mcp.server.mcpserver import Context
        mcp = FastMCP('x')
        @mcp.tool()
        def t(ctx: Context) -> str:
            return ctx.request_id
        @mcp.prompt()
        async def p(topic: str = "x", *, ctx: Context) -> str:
            await ctx.info(topic)
            return topic
        """, {"fixed"}),
    Case("MCP028", "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n@mcp.resource('x://static')\n"
                   "def r() -> str:\n    return mcp.get_context().request_id\n", None, {"manual"}, 1),
    Case("MCP028", "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\ndef helper() -> str:\n"
                   "    return mcp.get_context().request_id\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\nclass App:\n    def get_context(self): ...\nApp().get_context()\n",
]


class TestMCP028(RuleTests):
    rule = "MCP028"
    cases = CASES
    negative = NEGATIVE

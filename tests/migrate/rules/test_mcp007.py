"""MCP007 lowlevel-decorators: Lowlevel `@server.<kind>()` decorators -> v2 request handlers via a v1-compatible adapter."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP007", """
        from mcp.server.lowlevel import Server
        import mcp.types as types
        app = Server("s")
        @app.list_tools()
        async def list_tools() -> list[types.Tool]:
            return []
        @app.call_tool(validate_input=False)
        async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
            return []
        """, None, {"fixed"}),
]

NEGATIVE: list[str] = [
    "class Srv:\n    def list_tools(self): return lambda f: f\napp = Srv()\n@app.list_tools()\nasync def f(): ...\n",
]


class TestMCP007(RuleTests):
    rule = "MCP007"
    cases = CASES
    negative = NEGATIVE

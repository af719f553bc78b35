"""MCP045 ctor-positional-args: Positional `FastMCP(name, instructions, ...)` args -> keywords (2nd positional is now `title`)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP045", """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP("Demo", "Be helpful", "https://example.com")
        """, """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP("Demo", instructions="Be helpful", website_url="https://example.com")
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mcp.server.mcpserver import MCPServer\nm = MCPServer('n', 'title')\n",
]


class TestMCP045(RuleTests):
    rule = "MCP045"
    cases = CASES
    negative = NEGATIVE

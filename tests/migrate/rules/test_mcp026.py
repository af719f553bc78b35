"""MCP026 server-default-name: `FastMCP()` with no name reported `serverInfo.name == "FastMCP"`; v2 reports `"mcp-server"`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP026", """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP()
        other = FastMCP(instructions="x")
        """, """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP("FastMCP")
        other = FastMCP("FastMCP", instructions="x")
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP(name='x')\nfrom mylib import Other\nOther()\n",
]


class TestMCP026(RuleTests):
    rule = "MCP026"
    cases = CASES
    negative = NEGATIVE

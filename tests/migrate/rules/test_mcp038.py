"""MCP038 private-lowlevel-attr: `server._mcp_server` -> `server._lowlevel_server`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP038", """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP("x")
        low = mcp._mcp_server
        """, """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP("x")
        low = mcp._lowlevel_server
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "class Mine:\n    _mcp_server = None\nm = Mine()\nm._mcp_server\n",
]


class TestMCP038(RuleTests):
    rule = "MCP038"
    cases = CASES
    negative = NEGATIVE

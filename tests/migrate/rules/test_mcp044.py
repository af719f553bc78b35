"""MCP044 fastmcp-error-renamed: `FastMCPError` -> `MCPServerError`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP044", """
        from mcp.server.fastmcp.exceptions import FastMCPError
        raise FastMCPError("x")
        """, """
        from mcp.server.mcpserver.exceptions import MCPServerError
        raise MCPServerError("x")
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "class FastMCPError(Exception): ...\n",
]


class TestMCP044(RuleTests):
    rule = "MCP044"
    cases = CASES
    negative = NEGATIVE

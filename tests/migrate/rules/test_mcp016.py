"""MCP016 mcperror-renamed: `McpError` -> `MCPError`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP016", """
        from mcp import McpError
        from mcp.shared.exceptions import McpError as E
        try:
            pass
        except McpError as e:
            raise E(e.error)
        """, """
        from mcp import MCPError
        from mcp.shared.exceptions import MCPError as E
        try:
            pass
        except MCPError as e:
            raise E(e.error)
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "class McpError(Exception): ...\nraise McpError()\n",
]


class TestMCP016(RuleTests):
    rule = "MCP016"
    cases = CASES
    negative = NEGATIVE

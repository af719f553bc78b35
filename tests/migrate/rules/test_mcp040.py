"""MCP040 shared-version-module: `mcp.shared.version` -> `mcp.types.version`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP040", """
        from mcp.shared.version import SUPPORTED_PROTOCOL_VERSIONS
        """, """
        from mcp.types.version import SUPPORTED_PROTOCOL_VERSIONS
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mcp.shared.exceptions import McpError\n",
]


class TestMCP040(RuleTests):
    rule = "MCP040"
    cases = CASES
    negative = NEGATIVE

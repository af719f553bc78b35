"""MCP033 protocol-version-header-const: `MCP_PROTOCOL_VERSION` header constant -> `mcp.shared.inbound.MCP_PROTOCOL_VERSION_HEADER`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP033", """
        from mcp.client.streamable_http import MCP_PROTOCOL_VERSION, streamablehttp_client
        headers = {MCP_PROTOCOL_VERSION: "2025-06-18"}
        """, """
        from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
        from mcp.client.streamable_http import streamablehttp_client
        headers = {MCP_PROTOCOL_VERSION_HEADER: "2025-06-18"}
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "MCP_PROTOCOL_VERSION = 'mcp-protocol-version'\nh = {MCP_PROTOCOL_VERSION: 1}\n",
]


class TestMCP033(RuleTests):
    rule = "MCP033"
    cases = CASES
    negative = NEGATIVE

"""MCP233 mcp-param-headers: Tools declaring `x-mcp-header` annotations are header-validated at 2026-07-28."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP233", "schema = {'x-mcp-header': 'X-Region'}\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "headers = {'x-request-id': '1'}\n",
]


class TestMCP233(RuleTests):
    rule = "MCP233"
    cases = CASES
    negative = NEGATIVE

"""MCP227 unknown-method-32601: Unknown methods answer -32601 (was -32602)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP227", "from mcp.shared.exceptions import McpError\ndef check(exc: McpError) -> None:\n"
                   "    assert exc.error.code == -32602\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.shared.exceptions import McpError\ndef check(exc: McpError) -> None:\n    assert exc.error.code == -32601\n",
    "resp = get()\nassert resp.code == -32602\n",
]


class TestMCP227(RuleTests):
    rule = "MCP227"
    cases = CASES
    negative = NEGATIVE

"""MCP204 client-inbound-validation: `ClientSession` validates server traffic against the negotiated schema."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP204", "from mcp import ClientSession\ns = ClientSession(r, w)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mylib import ClientSession\nClientSession()\n",
]


class TestMCP204(RuleTests):
    rule = "MCP204"
    cases = CASES
    negative = NEGATIVE

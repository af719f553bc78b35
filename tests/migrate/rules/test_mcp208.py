"""MCP208 callbacks-concurrent: Client callbacks and notifications run concurrently (no ordering); raising callbacks answer code 0."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP208", "from mcp import ClientSession\ns = ClientSession(r, w, sampling_callback=cb)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mylib import ClientSession\nClientSession(sampling_callback=cb)\n",
]


class TestMCP208(RuleTests):
    rule = "MCP208"
    cases = CASES
    negative = NEGATIVE

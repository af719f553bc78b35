"""MCP073 stdio-fd-watchdog: Watchdogs polling fd 0 (POLLHUP/POLLERR) are disarmed or fire at startup under v2's fd diversion."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP073", "import select\nimport mcp.types\nflags = select.POLLHUP\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import select\nflags = select.POLLHUP\n",
]


class TestMCP073(RuleTests):
    rule = "MCP073"
    cases = CASES
    negative = NEGATIVE

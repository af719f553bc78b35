"""MCP069 tasks-removed: Experimental Tasks API removed (`mcp.*.experimental`, task execution modes)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP069", "from mcp.server.experimental.task_context import ServerTaskContext\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\nexperimental = True\n",
]


class TestMCP069(RuleTests):
    rule = "MCP069"
    cases = CASES
    negative = NEGATIVE

"""MCP055 progress-context-removed: `mcp.shared.progress` (`progress()`, `ProgressContext`) removed."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP055", "from mcp.shared.progress import progress\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\nprogress = 3\nprint(progress)\n",
]


class TestMCP055(RuleTests):
    rule = "MCP055"
    cases = CASES
    negative = NEGATIVE

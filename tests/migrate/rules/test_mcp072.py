"""MCP072 terminate-windows-process: `mcp.os.win32.utilities.terminate_windows_process` removed."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP072", "from mcp.os.win32.utilities import terminate_windows_process\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "def terminate_windows_process(): ...\nterminate_windows_process()\n",
]


class TestMCP072(RuleTests):
    rule = "MCP072"
    cases = CASES
    negative = NEGATIVE

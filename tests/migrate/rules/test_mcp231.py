"""MCP231 deprecated-client-progress: Client->server progress deprecated (`send_progress_notification` on the client)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP231", "from mcp import ClientSession\nasync def f(s: ClientSession) -> None:\n"
                   "    await s.send_progress_notification('t', 1.0)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(bus):\n    bus.send_progress_notification('t', 1)\n",
]


class TestMCP231(RuleTests):
    rule = "MCP231"
    cases = CASES
    negative = NEGATIVE

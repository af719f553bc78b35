"""MCP226 cancelled-no-response: Cancelled requests get no response (2025 streamable HTTP: -32800)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP226", "import mcp.types as types\nnote = {'method': 'notifications/cancelled', 'params': {'requestId': 1}}\n",
         None, {"manual"}, 1),
    Case("MCP226", "from mcp.types import CancelledNotification, CancelledNotificationParams\n"
                   "n = CancelledNotification(params=CancelledNotificationParams(requestId=1))\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "note = {'method': 'notifications/cancelled'}\n",
]


class TestMCP226(RuleTests):
    rule = "MCP226"
    cases = CASES
    negative = NEGATIVE

"""MCP060 lowlevel-handle-overrides: Subclasses overriding `_handle_message`/`_handle_request`/`_handle_notification` -> middleware."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP060", "from mcp.server.lowlevel import Server\nclass S(Server):\n"
                   "    async def _handle_request(self, *a): ...\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.lowlevel import Server\nclass S(Server):\n    def helper(self): ...\n",
]


class TestMCP060(RuleTests):
    rule = "MCP060"
    cases = CASES
    negative = NEGATIVE

"""MCP230 deprecated-resource-subscriptions: `subscribe_resource`/`unsubscribe_resource` on
Client/ClientSession warn; 2026 servers answer -32601."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP230", "from mcp import ClientSession\nasync def f(s: ClientSession) -> None:\n"
                   "    await s.subscribe_resource('x://y')\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(feed):\n    feed.subscribe_resource('x')\n",
]


class TestMCP230(RuleTests):
    rule = "MCP230"
    cases = CASES
    negative = NEGATIVE

"""MCP229 deprecated-ping: `Client.send_ping()` warns (ping removed in 2026-07-28)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP229", "from mcp import ClientSession\nasync def f(s: ClientSession) -> None:\n    await s.send_ping()\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(net):\n    net.send_ping()\n",
]


class TestMCP229(RuleTests):
    rule = "MCP229"
    cases = CASES
    negative = NEGATIVE

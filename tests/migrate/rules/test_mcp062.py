"""MCP062 serversession-proxy: `ServerSession` is a per-request proxy: identity-keyed state, direct construction/subclassing."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP062", "from mcp.server.session import ServerSession\nclass Mine(ServerSession):\n    pass\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.session import ServerSession\ndef f(s: ServerSession) -> None: ...\n",
]


class TestMCP062(RuleTests):
    rule = "MCP062"
    cases = CASES
    negative = NEGATIVE

"""MCP030 timedelta-timeouts: Client timeouts take float seconds, not `timedelta`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP030", """
        from datetime import timedelta
        from mcp import ClientSession
        s = ClientSession(r, w, read_timeout_seconds=timedelta(seconds=5))
        t = ClientSession(r, w, read_timeout_seconds=timedelta(minutes=m))
        """, """
        from datetime import timedelta
        from mcp import ClientSession
        s = ClientSession(r, w, read_timeout_seconds=5.0)
        t = ClientSession(r, w, read_timeout_seconds=timedelta(minutes=m).total_seconds())
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from datetime import timedelta\nimport httpx\nc = httpx.Client(timeout=timedelta(seconds=1))\n",
]


class TestMCP030(RuleTests):
    rule = "MCP030"
    cases = CASES
    negative = NEGATIVE

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
    # a module-level name bound once to a timedelta, and nowhere else
    Case("MCP030", """
        from datetime import timedelta
        from mcp import ClientSession
        TIMEOUT = timedelta(seconds=5)
        session = ClientSession(r, w, read_timeout_seconds=TIMEOUT)
        """, """
        from datetime import timedelta
        from mcp import ClientSession
        TIMEOUT = timedelta(seconds=5)
        session = ClientSession(r, w, read_timeout_seconds=TIMEOUT.total_seconds())
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    # the name is bound again (a parameter, a second assignment) or is no timedelta: left alone
    "from datetime import timedelta\nfrom mcp import ClientSession\nTIMEOUT = timedelta(seconds=5)\n"
    "def f(TIMEOUT):\n    return ClientSession(r, w, read_timeout_seconds=TIMEOUT)\n",
    "from datetime import timedelta\nfrom mcp import ClientSession\nTIMEOUT = timedelta(seconds=5)\nTIMEOUT = 3.0\n"
    "session = ClientSession(r, w, read_timeout_seconds=TIMEOUT)\n",
    "from mcp import ClientSession\nTIMEOUT = 5.0\nsession = ClientSession(r, w, read_timeout_seconds=TIMEOUT)\n",
    "from datetime import timedelta\nimport httpx\nc = httpx.Client(timeout=timedelta(seconds=1))\n",
]


class TestMCP030(RuleTests):
    rule = "MCP030"
    cases = CASES
    negative = NEGATIVE


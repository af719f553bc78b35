"""MCP030 timedelta-timeouts: Client timeouts take float seconds, not `timedelta`."""

from __future__ import annotations

import pytest
from migrate_helpers import Case, RuleTests, migrate_source

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


@pytest.mark.xfail(strict=True, reason="known gap: only a `timedelta(...)` written in the argument is converted; "
                                       "one bound to a name first is not followed")
def test_a_timedelta_bound_to_a_name_first() -> None:
    source = """
    from datetime import timedelta
    from mcp import ClientSession
    TIMEOUT = timedelta(seconds=5)
    session = ClientSession(r, w, read_timeout_seconds=TIMEOUT)
    """
    assert migrate_source(source, "MCP030")[1] != []

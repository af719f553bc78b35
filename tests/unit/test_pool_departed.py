"""Issue #30: the sessions (stdio children) of client identities whose callers have left are closed after a short
grace; the most recently used one stays for ``idle_ms``; never one with a call, lease, claim or parked call (pure)."""

from __future__ import annotations

from mcp_eras.bridge.translate.legacy_server.call import LegacyCall
from mcp_eras.bridge.translate.legacy_server.pool import Grant, Limits, Pool

LIMITS = Limits(idle_ms=600_000, departed_ms=30_000)


def request(name: str) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "_meta": {
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"}}}}


def served(pool: Pool, name: str, sid: str, at: int) -> None:
    """One caller of identity ``name`` gets session ``sid`` (new or its own) at ``at`` and its call ends at once."""
    grant = pool.acquire(request(name), None, sid, limits=LIMITS, now_ms=at)
    assert isinstance(grant, Grant)
    pool.begin_call(grant.sid, request(name), at, exclusive=grant.exclusive, server_info=None, ttl_ms=0,
                    cache_scope="private", now_ms=at)
    pool.close_call(grant.sid, at, at)


def test_three_identities_one_after_another_leave_one_session_after_the_grace() -> None:
    pool = Pool()
    for i, name in enumerate(("a", "b", "c")):
        served(pool, name, f"s{i}", 1_000 * (i + 1))
    assert pool.next_reap_ms(LIMITS) == 1_000 + 30_000 + 1  # the first departed identity's session
    assert pool.reap(31_000, LIMITS) == ()
    assert pool.reap(33_001, LIMITS) == ("s0", "s1")
    assert list(pool.sessions) == ["s2"]  # the most recently used one stays warm ...
    assert pool.next_reap_ms(LIMITS) == 3_000 + 600_000 + 1
    assert pool.reap(603_001, LIMITS) == ("s2",)  # ... for the idle limit
    assert pool.next_reap_ms(LIMITS) is None


def test_a_session_with_a_call_claim_or_parked_round_is_never_reaped() -> None:
    pool = Pool()
    served(pool, "a", "s0", 1_000)
    grant = pool.acquire(request("b"), None, "s1", limits=LIMITS, now_ms=2_000)  # claimed, call not begun
    assert isinstance(grant, Grant)
    served(pool, "c", "s2", 3_000)
    call, _ = pool.begin_call("s0", request("a"), 9, exclusive=True, server_info=None, ttl_ms=0, cache_scope="private",
                              now_ms=4_000)
    assert pool.reap(10_000_000, LIMITS) == ("s2",)  # s0 runs a call, s1 is claimed
    pool.park("s0", call, request("a"), "p", None, expires_ms=10**9, limits=LIMITS)
    pool.unclaim("s1")
    pool.release("s1")  # (its caller gave up before the call began: claim and lease go back)
    assert pool.reap(10_000_000, LIMITS) == ("s1",)  # s0 holds a parked round
    assert isinstance(call, LegacyCall) and "s0" in pool.sessions


def test_on_a_tie_the_later_opened_session_stays_warm() -> None:
    pool = Pool()
    for i, name in enumerate(("a", "b", "c")):
        served(pool, name, f"s{i}", 5_000)  # all in the same millisecond
    assert pool.reap(5_000 + 30_001, LIMITS) == ("s0", "s1")

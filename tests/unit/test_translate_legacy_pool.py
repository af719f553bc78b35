"""Pool, leases, parked calls and inbound routing of 2025 upstream sessions, as plain data."""

from __future__ import annotations

import copy
import json

import pytest

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.legacy_server.call import LegacyCall
from mcp_eras.bridge.translate.legacy_server.pool import Grant, Limits, Pool, Refuse, Wait, identity_key, route_inbound

import spec

LIMITS = Limits(per_identity_sessions=2, total_sessions=3, parked_per_identity=2, parked_total=3)


def request(caps: dict | None = None, name: str = "ExampleClient", method: str = "tools/call") -> dict:
    req = copy.deepcopy(spec.example("CallToolRequest"))
    req["method"] = method
    req["params"]["_meta"][eras.META_CLIENT_CAPABILITIES] = caps or {}
    req["params"]["_meta"][eras.META_CLIENT_INFO] = {"name": name, "version": "1"}
    return req


def grant(pool: Pool, req: dict | None, sid: str, principal: str | None = "alice") -> Grant:
    choice = pool.acquire(req, principal, sid, limits=LIMITS, now_ms=int(sid.strip("s") or 0))
    assert isinstance(choice, Grant), choice
    return choice


def test_identity_decides_the_session_and_input_capable_calls_get_a_lease() -> None:
    pool = Pool()
    plain = grant(pool, request(), "s1")
    assert plain.new and not plain.exclusive
    assert grant(pool, request(), "s9") == Grant("s1")  # same identity, no lease needed: shared
    asking = request({"elicitation": {}})
    first = grant(pool, asking, "s2")
    assert first.new and first.exclusive
    second = grant(pool, asking, "s3")
    assert second.new and second.exclusive and second.sid != first.sid
    assert isinstance(pool.acquire(asking, "alice", "s4", limits=LIMITS), Wait)  # 2 per identity
    pool.release(first.sid)
    assert pool.acquire(asking, "alice", "s4", limits=LIMITS) == Grant(first.sid, exclusive=True)
    assert identity_key("alice", {"sampling": {}}, None) != identity_key("bob", {"sampling": {}}, None)
    # A method that cannot ask (tools/list) or a client that declared nothing to ask: no lease.
    assert not grant(pool, request({"elicitation": {}}, method="tools/list"), "s5").exclusive


def test_total_cap_evicts_idle_sessions_then_refuses_by_name() -> None:
    pool = Pool()
    for i, who in enumerate(("a", "b", "c"), 1):
        grant(pool, request(name=who), f"s{i}")
    pool.unclaim("s1")  # its caller is done (discovery only)
    pool.begin_call("s2", request(name="b"), 1, exclusive=False, server_info=None, ttl_ms=0, cache_scope="private")
    fourth = grant(pool, request(name="d"), "s4")
    assert fourth.evict == ("s1",)  # the least recently used idle session
    pool.begin_call("s3", request(name="c"), 1, exclusive=False, server_info=None, ttl_ms=0, cache_scope="private")
    pool.begin_call("s4", request(name="d"), 1, exclusive=False, server_info=None, ttl_ms=0, cache_scope="private")
    refused = pool.acquire(request(name="e"), "alice", "s5", limits=LIMITS)
    assert isinstance(refused, Refuse) and refused.limit == "upstream_sessions" and refused.status == 503
    assert pool.refused == {"upstream_sessions": 1}


def test_provisional_session_is_retired_by_the_first_client_session() -> None:
    pool = Pool()
    assert grant(pool, None, "s0", principal=None).new
    assert pool.sessions["s0"].provisional
    assert grant(pool, request(), "s1").retire == ()  # s0 is still being readied for the bridge's start()
    pool.unclaim("s0")
    assert grant(pool, request(name="other"), "s2").retire == ("s0",)


def test_a_granted_session_is_not_idle_until_its_caller_begins_or_gives_up() -> None:
    """Between the grant and the call (a stdio child spawning, initialize) nobody may evict or reap the session
    under its caller: it would find its session gone (KeyError) or wait for a child that never starts."""
    pool = Pool()
    limits = Limits(total_sessions=1, idle_ms=1_000)
    assert pool.acquire(request(name="a"), "alice", "s1", limits=limits, now_ms=0) == Grant("s1", new=True)
    refused = pool.acquire(request(name="b"), "bob", "s2", limits=limits, now_ms=9_000)
    assert isinstance(refused, Refuse) and refused.limit == "upstream_sessions" and set(pool.sessions) == {"s1"}
    pool.begin_call("s1", request(name="a"), 1, exclusive=False, server_info=None, ttl_ms=0, cache_scope="private")
    pool.close_call("s1", 1, now_ms=0)
    assert pool.acquire(request(name="b"), "bob", "s2", limits=limits, now_ms=500) == Grant("s2", new=True, evict=("s1",))
    pool.unclaim("s2")  # a caller that gave up before its call
    assert pool.sessions["s2"].idle()


def test_parking_frees_the_lease_and_caps_release_the_oldest() -> None:
    pool = Pool()
    asking = request({"elicitation": {}})
    g = grant(pool, asking, "s1")
    calls = []
    for uid, expires in ((1, 100), (2, 200), (3, 300)):
        call, _ = pool.begin_call(g.sid, asking, uid, exclusive=True, server_info=None, ttl_ms=0, cache_scope="private")
        assert pool.sessions[g.sid].lease == uid
        rec, released = pool.park(g.sid, call, asking, f"p{uid}", "alice", expires_ms=expires, limits=LIMITS)
        assert pool.sessions[g.sid].lease is None  # a parked call blocks nobody
        calls.append((rec, released))
    assert [r.puc for r in calls[2][1]] == ["p1"]  # per-identity cap 2: the oldest goes
    assert pool.refused == {"parked_per_identity": 1}
    rec, locked = pool.reclaim("p2", calls[1][0].round)
    assert rec is not None and locked and pool.sessions[g.sid].lease == 2
    assert pool.reclaim("p2", rec.round) == (None, False)  # single use
    again, locked = pool.reclaim("p3", calls[2][0].round)
    assert again is not None and not locked  # call 2 runs: call 3 waits for relock
    pool.close_call(g.sid, 2)
    assert pool.relock(g.sid, 3)
    assert pool.expired(10_000) == []


def one_parked(caps: dict, expires_ms: int) -> tuple[Pool, Grant, LegacyCall, dict]:
    pool = Pool()
    asking = request(caps)
    g = grant(pool, asking, "s1")
    call, _ = pool.begin_call(g.sid, asking, 1, exclusive=True, server_info=None, ttl_ms=0, cache_scope="private")
    pool.park(g.sid, call, asking, "p1", "alice", expires_ms=expires_ms, limits=LIMITS)
    return pool, g, call, asking


def test_expiry_and_loss_drop_parked_calls() -> None:
    pool, g, call, asking = one_parked({"roots": {}}, 50)
    assert [r.puc for r in pool.expired(50)] == ["p1"]
    pool.park(g.sid, call, asking, "p2", "alice", expires_ms=500, limits=LIMITS)
    assert [r.puc for r in pool.lost(g.sid)] == ["p2"] and not pool.parked


def test_subscriptions_are_refcounted_per_session() -> None:
    pool = Pool()
    g = grant(pool, request(), "s1")
    assert pool.subscribe(g.sid, "file:///a") is True
    assert pool.subscribe(g.sid, "file:///a") is False
    assert pool.unsubscribe(g.sid, "file:///a") is False
    assert pool.unsubscribe(g.sid, "file:///a") is True
    assert pool.unsubscribe(g.sid, "file:///a") is False


@pytest.mark.parametrize(("msg", "related", "expected"), [
    (jsonrpc.result_response(1, {}), None, ("call", 1)),
    (jsonrpc.result_response(9, {}), None, ("drop", None)),
    (jsonrpc.request(50, "ping"), None, ("pong", None)),
    (jsonrpc.request(50, "tasks/get", {}), None, ("unknown", None)),
    (jsonrpc.request(50, "roots/list"), 2, ("call", 2)),  # wire attribution (Streamable HTTP)
    (jsonrpc.request(50, "roots/list"), None, ("call", 1)),  # the lease holder
    (jsonrpc.notification("notifications/progress", {"progressToken": 2, "progress": 1}), None, ("call", 2)),
    (jsonrpc.notification("notifications/message", {"level": "info", "data": 1}), None, ("call", 2)),
    (jsonrpc.notification("notifications/cancelled", {"requestId": 50}), None, ("calls", [1, 2])),
    (jsonrpc.notification("notifications/tools/list_changed"), None, ("fanout", None)),
    (jsonrpc.notification("notifications/resources/updated", {"uri": "x"}), None, ("fanout", None)),
    (jsonrpc.notification("notifications/elicitation/complete", {"elicitationId": "e"}), None, ("drop", None)),
])
def test_inbound_routing(msg: dict, related: object, expected: tuple) -> None:
    assert route_inbound(msg, related, {1: False, 2: True}, lease=1) == expected


def test_input_request_without_lease_goes_to_the_only_call_that_can_carry_it_else_to_the_session() -> None:
    ask = jsonrpc.request(50, "sampling/createMessage", {})
    assert route_inbound(ask, None, {1: False, 2: None}, lease=None) == ("call", 1)  # 2 is the bridge's own
    assert route_inbound(ask, None, {1: False, 3: False}, lease=None) == ("hold", None)
    assert route_inbound(ask, None, {2: None}, lease=None) == ("hold", None)
    # A call whose method cannot answer input_required (tools/list) does not carry it either.
    assert route_inbound(ask, None, {1: False, 2: None}, lease=None, askable=[]) == ("hold", None)


def test_pool_round_trips_through_json() -> None:
    pool, g, _call, _asking = one_parked({"elicitation": {}}, 5)
    pool.subscribe(g.sid, "file:///a")
    assert Pool.from_json(json.loads(json.dumps(pool.to_json()))) == pool


def test_idle_sessions_are_reaped_on_the_next_acquire() -> None:
    pool = Pool()
    limits = Limits(idle_ms=1_000)
    assert pool.acquire(request(name="a"), "alice", "s1", limits=limits, now_ms=0) == Grant("s1", new=True)
    pool.begin_call("s1", request(name="a"), 1, exclusive=False, server_info=None, ttl_ms=0, cache_scope="private")
    busy = pool.acquire(request(name="b"), "alice", "s2", limits=limits, now_ms=5_000)
    assert busy == Grant("s2", new=True)  # s1 has a call in flight: kept
    pool.close_call("s1", 1, now_ms=5_000)
    assert pool.acquire(request(name="b"), "alice", "s3", limits=limits, now_ms=5_500).retire == ()
    assert pool.acquire(request(name="b"), "alice", "s3", limits=limits, now_ms=6_001).retire == ("s1",)
    assert set(pool.sessions) == {"s2"}


def test_idle_sessions_are_looked_for_once_per_tenth_of_the_idle_limit() -> None:
    pool = Pool()
    limits = Limits(idle_ms=1_000)
    pool.acquire(request(name="a"), "alice", "s1", limits=limits, now_ms=0)
    pool.begin_call("s1", request(name="a"), 1, exclusive=False, server_info=None, ttl_ms=0, cache_scope="private")
    pool.close_call("s1", 1, now_ms=5_000)
    assert pool.acquire(request(name="b"), "alice", "s2", limits=limits, now_ms=5_950).retire == ()  # looked: none yet
    assert pool.acquire(request(name="b"), "alice", "s3", limits=limits, now_ms=6_010).retire == ()  # s1 due, not looked
    assert pool.acquire(request(name="b"), "alice", "s3", limits=limits, now_ms=6_051).retire == ("s1",)
    assert Pool.from_json(pool.to_json()).reap_at_ms == 6_151  # the next look, kept in the shared state
    pool.acquire(request(name="b"), "alice", "s3", limits=limits, now_ms=0)
    assert pool.reap_at_ms == 100  # a clock set back: looked at once


def test_identities_that_come_and_go_leave_nothing_in_the_index() -> None:
    pool = Pool()
    limits = Limits(total_sessions=4, idle_ms=1_000)
    for n in range(50):  # each new identity evicts an idle one at the cap
        pool.acquire(request(name=f"client-{n}"), "alice", f"s{n}", limits=limits, now_ms=n)
        pool.unclaim(f"s{n}")
    assert len(pool.sessions) == 4 and sum(len(v) for v in pool._groups.values()) == 4  # noqa: SLF001
    pool.drop("s49")
    assert len(pool._groups) == 3 and pool.group(pool.sessions["s48"].key)[0].sid == "s48"  # noqa: SLF001


def test_a_roots_change_concerns_the_sessions_of_that_identity_only() -> None:
    pool = Pool()
    rooted = request({"roots": {}, "elicitation": {}})
    mine = grant(pool, rooted, "s1")
    grant(pool, request({"roots": {}, "elicitation": {}}, name="OtherClient"), "s2")
    grant(pool, rooted, "s3", principal="bob")
    assert pool.identity_sessions(rooted, "alice") == [mine.sid]
    assert pool.identity_sessions(request(), "alice") == []

"""translate.legacy_server.leases: who gets an input lease of a 2025 session when one is freed, as plain data (the
order the shell's waiters are served in; tests/inprocess/test_legacy_lease_queue.py runs it with real waits)."""

from __future__ import annotations

import copy

from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate.legacy_server.leases import LeaseLine
from mcp_eras.bridge.translate.legacy_server.pool import Grant, Limits, Pool, Wait, lease_key

import spec

LIMITS = Limits(per_identity_sessions=1)


def asking() -> dict:
    req = copy.deepcopy(spec.example("CallToolRequest"))
    req["params"]["_meta"][eras.META_CLIENT_CAPABILITIES] = {"elicitation": {}}
    return req


def busy_pool() -> tuple[Pool, str, str]:
    """A pool whose one session of the identity holds its lease (upstream call 1)."""
    pool = Pool()
    granted = pool.acquire(asking(), "alice", "s1", limits=LIMITS)
    assert isinstance(granted, Grant) and granted.exclusive
    pool.begin_call("s1", asking(), 1, exclusive=True, server_info=None, ttl_ms=0, cache_scope="private")
    assert isinstance(pool.acquire(asking(), "alice", "s2", limits=LIMITS), Wait)
    key = lease_key(asking(), "alice")
    assert key is not None
    return pool, "s1", key


def test_waiters_are_woken_first_come_first_served_one_per_free_lease() -> None:
    pool, sid, key = busy_pool()
    line = LeaseLine()
    for token in (1, 2, 3):
        line.join(key, token, at_head=False)
    everyone = lambda _t: True  # noqa: E731
    assert line.waiting(key, everyone) and line.wake(key, pool, LIMITS, everyone) == []  # no lease is free
    pool.close_call(sid, 1)
    assert line.freed(sid, pool, LIMITS, everyone) == [1]
    assert line.wake(key, pool, LIMITS, everyone) == []  # the free lease is promised to the woken waiter
    line.took_wake(key)  # it took the lease (or went away and handed its wake on)
    assert line.wake(key, pool, LIMITS, everyone) == [2]
    line.join(key, 9, at_head=True)  # a woken waiter that lost its lease anyway goes back to the head
    line.took_wake(key)
    assert line.wake(key, pool, LIMITS, everyone) == [9]


def test_waiters_gone_are_skipped_where_they_are_found() -> None:
    pool, sid, key = busy_pool()
    line = LeaseLine()
    for token in (1, 2):
        line.join(key, token, at_head=False)
    gone = {1}
    live = lambda t: t not in gone  # noqa: E731
    pool.close_call(sid, 1)
    assert line.freed(sid, pool, LIMITS, live) == [2] and not line.queues
    line.join(key, 3, at_head=False)
    gone.add(3)
    assert not line.waiting(key, live) and not line.queues[key]


def test_a_resuming_parked_call_takes_its_sessions_lease_before_the_queue() -> None:
    pool, sid, key = busy_pool()
    line = LeaseLine()
    line.join(key, 1, at_head=False)
    line.resume(sid, 7, token=2)  # parked call 7 of that session wants to run again
    pool.close_call(sid, 1)
    assert line.freed(sid, pool, LIMITS, lambda _t: True) == [2]
    assert pool.sessions[sid].lease == 7 and not line.resumers and line.queues[key]  # relocked: the waiter waits on
    assert line.freed("gone", pool, LIMITS, lambda _t: True) == []


def test_shutting_down_wakes_everyone_and_an_empty_line_is_idle() -> None:
    line = LeaseLine()
    assert line.idle() and line.freed("s1", Pool(), LIMITS, lambda _t: True) == []
    line.join("k", 1, at_head=False)
    line.resume("s1", 4, 2)
    assert not line.idle() and sorted(line.everyone()) == [1, 2] and line.idle()

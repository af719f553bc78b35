"""The input-lease queue of the legacy upstream (#10): waiters of one identity are served first come
first served, one per freed lease; a waiter that times out or is cancelled leaves no lease behind and
loses nobody's wake-up; a parked call resuming on a busy session gets that session's lease first."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from fake_legacy import TransportBank
from handoffs import tools_call

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.legacy_server.pool import LIMIT_ERROR, Limits
from mcp_eras.bridge.upstream.legacy import LegacyUpstream

pytestmark = pytest.mark.anyio
ASK = {"elicitation": {}}
ALICE = CallContext(principal="alice")


def upstream(bank: TransportBank, sessions: int = 1, **settings: Any) -> LegacyUpstream:
    return LegacyUpstream(bank, Settings(**settings), name="fake", limits=Limits(per_identity_sessions=sessions))


async def holding_the_lease(up: LegacyUpstream, bank: TransportBank, rid: int = 0) -> asyncio.Future[Message]:
    """An input-capable call that holds its session's lease until the fake server's ``release``."""
    blocker = asyncio.ensure_future(up.call(tools_call(rid, "block", ASK), ALICE, discard))
    await asyncio.wait_for(bank.blocking.wait(), 10)
    return blocker


async def release(bank: TransportBank, blocker: asyncio.Future[Message]) -> None:
    bank.made[0].server.release.set()
    await asyncio.wait_for(blocker, 10)


async def until(condition: Callable[[], bool]) -> None:
    """Let the other tasks run, one loop step at a time, until ``condition`` holds (bounded)."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never held")


async def queued(up: LegacyUpstream, n: int) -> None:
    """Until ``n`` callers wait in the identity queues."""
    await until(lambda: sum(1 for q in up.leases.queues.values() for t in q if up._live(t)) >= n)


async def test_waiters_are_served_in_arrival_order_one_per_freed_lease() -> None:
    bank = TransportBank()
    up = upstream(bank)
    blocker = await holding_the_lease(up, bank)
    order: list[int] = []

    async def caller(i: int) -> Message:
        answer = await up.call(tools_call(i, "echo", ASK, text=str(i)), ALICE, discard)
        order.append(i)
        return answer

    waiters = []
    for i in range(1, 6):
        waiters.append(asyncio.ensure_future(caller(i)))
        await queued(up, i)
    bank.made[0].server.release.set()
    answers = await asyncio.wait_for(asyncio.gather(blocker, *waiters), 10)
    assert [a["result"]["content"][0]["text"] for a in answers[1:]] == ["1", "2", "3", "4", "5"]
    assert order == [1, 2, 3, 4, 5]
    assert not up.leases.queues and not up.leases.resumers
    await up.aclose()


async def test_a_waiter_cancelled_while_queued_leaks_no_lease() -> None:
    bank = TransportBank()
    up = upstream(bank, request_timeout=30.0)
    blocker = await holding_the_lease(up, bank)
    first = asyncio.ensure_future(up.call(tools_call(1, "echo", ASK, text="1"), ALICE, discard))
    await queued(up, 1)
    second = asyncio.ensure_future(up.call(tools_call(2, "echo", ASK, text="2"), ALICE, discard))
    await queued(up, 2)
    first.cancel()  # the client went away while queued
    with pytest.raises(asyncio.CancelledError):
        await first
    await release(bank, blocker)
    answer = await asyncio.wait_for(second, 10)
    assert answer["result"]["content"][0]["text"] == "2"
    assert all(rec.lease is None and not rec.calls for rec in up.pool.sessions.values())
    await up.aclose()


async def test_a_waiter_cancelled_after_its_wake_up_passes_it_on() -> None:
    up = upstream(TransportBank())
    heads = [asyncio.ensure_future(up._wait_for_lease("k", at_head=False)) for _ in range(3)]
    await queued(up, 3)
    up._wake("k")  # one lease free (no session yet, room for one): exactly one waiter is woken
    assert [up._live(t) for t in up.leases.queues["k"]] == [True, True]
    heads[0].cancel()  # ... and cancelled before it ran
    await asyncio.wait_for(heads[1], 10)  # the wake-up went to the next one, not lost
    assert not heads[2].done()
    heads[2].cancel()
    await up.aclose()


async def test_waiters_past_the_deadline_are_refused_by_name_and_the_next_caller_runs() -> None:
    bank = TransportBank()
    up = upstream(bank, request_timeout=30.0)
    blocker = await holding_the_lease(up, bank)
    # Only the waiters get the short deadline: with one deadline for all, the blocker's (armed first) could expire
    # first on a slow host and hand its lease to a waiter that then runs instead of being refused.
    up.settings = up.settings.model_copy(update={"request_timeout": 0.5})
    late = await asyncio.gather(*[up.call(tools_call(i, "echo", ASK, text="x"), ALICE, discard) for i in range(1, 4)])
    assert {(a["error"]["code"], a["error"]["data"]["limit"]) for a in late} == {(LIMIT_ERROR, "per_identity_sessions")}
    await release(bank, blocker)
    answer = await up.call(tools_call(9, "echo", ASK, text="next"), ALICE, discard)
    assert answer["result"]["content"][0]["text"] == "next"
    assert not up.leases.queues
    await up.aclose()


async def test_a_resuming_parked_call_takes_its_session_lease_before_queued_callers() -> None:
    bank = TransportBank()
    up = upstream(bank)
    ask = tools_call(1, "ask", ASK)
    first = await up.call(ask, ALICE, discard)
    assert first["result"]["resultType"] == "input_required"
    blocker = await holding_the_lease(up, bank, 2)  # the lease the parked call gave up
    waiter = asyncio.ensure_future(up.call(tools_call(3, "echo", ASK, text="w"), ALICE, discard))
    await queued(up, 1)
    request = {**ask, "id": 4, "params": {**ask["params"], "requestState": first["result"]["requestState"],
                                          "inputResponses": {k: {"action": "accept", "content": {}}
                                                             for k in first["result"]["inputRequests"]}}}
    resumed = asyncio.ensure_future(up.call(request, ALICE, discard))
    await until(lambda: bool(up.leases.resumers))
    bank.made[0].server.release.set()
    done = await asyncio.wait_for(asyncio.gather(blocker, resumed, waiter), 10)
    assert done[1]["result"]["content"][0]["text"] == "accept"
    assert done[2]["result"]["content"][0]["text"] == "w"
    await up.aclose()


async def test_callers_granted_a_session_still_opening_wait_for_it() -> None:
    """The first client session retires the provisional one and closes it before its own child starts (the
    cap on children); callers of the same identity granted the new session meanwhile wait for it to be live
    (they got KeyError, -32603, when the close took a while)."""
    bank = TransportBank()
    up = upstream(bank)
    await up.start()
    provisional, closing, gate = bank.made[0], asyncio.Event(), asyncio.Event()
    close = provisional.close

    async def slow_close() -> None:
        closing.set()
        await gate.wait()
        await close()

    provisional.close = slow_close  # type: ignore[method-assign]
    calls = [asyncio.ensure_future(up.call(tools_call(rid, "echo", text=str(rid)), ALICE, discard)) for rid in range(8)]
    await asyncio.wait_for(closing.wait(), 10)
    await until(lambda: sum(s.claims for s in up.pool.sessions.values()) >= 8)  # all eight granted the new session
    gate.set()
    answers = await asyncio.wait_for(asyncio.gather(*calls), 10)
    assert [a["id"] for a in answers if "result" in a] == list(range(8)), answers
    assert len(bank.made) == 2 and provisional.closed
    await up.aclose()

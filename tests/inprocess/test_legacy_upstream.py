"""The legacy upstream shell in process over fake 2025 sessions (no subprocess): pool, leases,
parking, expiry, caps, session loss, listen. Frames the client gets are validated against 2026-07-28."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fake_legacy import FakeLegacyServer, TransportBank, lose
from handoffs import tools_call

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.legacy_server.pool import LIMIT_ERROR, Limits
from mcp_eras.bridge.upstream.legacy import LegacyUpstream

import spec

pytestmark = pytest.mark.anyio
ASK = {"elicitation": {}}
ALICE = CallContext(principal="alice")


def upstream(bank: TransportBank | None = None, limits: Limits | None = None, **settings: Any) -> LegacyUpstream:
    return LegacyUpstream(bank or TransportBank(), Settings(**settings), name="fake", limits=limits)


def retry(first: Message, rid: int, original: Message, answers: dict[str, Any] | None = None) -> Message:
    """The client's retry of ``original``: a new id, the requestState, and answers (all accepted by default)."""
    result = first["result"]
    request = {**original, "id": rid, "params": dict(original["params"])}
    request["params"]["requestState"] = result["requestState"]
    request["params"]["inputResponses"] = answers if answers is not None else {
        k: {"action": "accept", "content": {}} for k in result["inputRequests"]}
    return request


async def next_answer(server: FakeLegacyServer) -> Message:
    return await asyncio.wait_for(server.answers.get(), 10)


async def test_plain_call_initializes_one_session_and_translates_the_result() -> None:
    bank = TransportBank()
    up = upstream(bank)
    response = await up.call(tools_call(1, text="hi"), ALICE, discard)
    spec.modern("CallToolResultResponse", response)
    assert response["result"]["content"][0]["text"] == "hi"
    server = bank.made[0].server
    assert [m.get("method") for m in server.received[:2]] == ["initialize", "notifications/initialized"]
    spec.legacy("InitializeRequest", server.received[0])
    await up.call(tools_call(2, text="again"), ALICE, discard)
    assert len(bank.made) == 1 and up.status()["sessions"] == 1
    await up.aclose()


async def test_progress_is_monotonic_and_logs_reach_only_the_opted_in_call() -> None:
    up = upstream()
    notes: list[Message] = []

    async def emit(msg: Message) -> None:
        notes.append(msg)

    request = tools_call(1, "progress")
    request["params"]["_meta"].update({"progressToken": "p", "io.modelcontextprotocol/logLevel": "info"})
    await up.call(request, ALICE, emit)
    assert [n["params"]["progress"] for n in notes if n["method"] == "notifications/progress"] == [1, 2, 3]
    assert [n["method"] for n in notes].count("notifications/message") == 1
    for note in notes:
        spec.modern("ProgressNotification" if note["method"] == "notifications/progress" else "LoggingMessageNotification", note)
    await up.aclose()


async def test_mrtr_round_asks_again_for_missing_answers_then_finishes() -> None:
    bank = TransportBank()
    up = upstream(bank)
    ask = tools_call(1, "ask", ASK, n=2)
    first = await up.call(ask, ALICE, discard)
    spec.modern("JSONRPCResultResponse", first)
    spec.modern("InputRequiredResult", first["result"])
    keys = sorted(first["result"]["inputRequests"])
    assert len(keys) == 2  # two concurrent server requests: one round
    partial = await up.call(retry(first, 2, ask, {keys[0]: {"action": "accept", "content": {}}}), ALICE, discard)
    assert sorted(partial["result"]["inputRequests"]) == keys[1:]
    final = await up.call(retry(partial, 3, ask), ALICE, discard)
    assert final["id"] == 3 and final["result"]["content"][0]["text"] == "accept,accept"
    spec.modern("CallToolResultResponse", final)
    replay = await up.call(retry(first, 4, ask), ALICE, discard)
    assert replay["error"]["code"] == -32602  # single use
    await up.aclose()


async def test_a_parked_call_does_not_block_the_identity() -> None:
    up = upstream(limits=Limits(per_identity_sessions=1))
    ask = tools_call(1, "ask", ASK)
    parked = await up.call(ask, ALICE, discard)
    assert parked["result"]["resultType"] == "input_required"
    # Same identity, input-capable, one session allowed: it runs while the other call is parked.
    other = await up.call(tools_call(2, "echo", ASK, text="meanwhile"), ALICE, discard)
    assert other["result"]["content"][0]["text"] == "meanwhile"
    final = await up.call(retry(parked, 3, ask), ALICE, discard)
    assert final["result"]["content"][0]["text"] == "accept"
    await up.aclose()


async def test_abandoned_rounds_are_capped_and_others_still_get_answers() -> None:
    bank = TransportBank()
    up = upstream(bank, limits=Limits(per_identity_sessions=8, parked_per_identity=8, parked_total=16))
    firsts = await asyncio.gather(*[up.call(tools_call(i, "ask", ASK), ALICE, discard) for i in range(200)])
    assert {first["result"]["resultType"] for first in firsts} == {"input_required"}
    assert len(bank.made) <= 8
    assert up.status()["parked"] == 8 and up.status()["refused"]["parked_per_identity"] == 192
    same = await up.call(tools_call(1000, "echo", ASK, text="same"), ALICE, discard)
    other = await up.call(tools_call(1001, "echo", ASK, text="other"), CallContext(principal="bob"), discard)
    assert same["result"]["content"][0]["text"] == "same" and other["result"]["content"][0]["text"] == "other"
    # Released calls were answered upstream as a declining client would, then cancelled.
    server = next(t.server for t in bank.made if not t.server.answers.empty())
    first_answer = await next_answer(server)
    spec.legacy("ElicitResult", first_answer["result"])
    assert first_answer["result"] == {"action": "cancel"}
    await up.aclose()


@pytest.mark.parametrize("lifetimes", [{"parked_timeout": 0.05}, {"parked_timeout": 600, "state_ttl": 0.05}])
async def test_parked_call_expires_and_the_server_is_answered(lifetimes: dict[str, float]) -> None:
    """A parked call lives min(parked timeout, requestState lifetime)."""
    bank = TransportBank()
    up = upstream(bank, **lifetimes)
    ask = tools_call(1, "ask", ASK)
    first = await up.call(ask, ALICE, discard)
    server = bank.made[0].server
    assert (await next_answer(server))["result"] == {"action": "cancel"}
    cancelled = await next_answer(server)
    spec.legacy("CancelledNotification", cancelled)
    late = await up.call(retry(first, 2, ask), ALICE, discard)
    assert late["error"]["code"] == -32602 and up.status()["parked"] == 0
    await up.aclose()


@pytest.mark.parametrize(("caps", "args", "outcome"), [
    ({}, {}, -32021),  # no input capability at all: the only call in flight is the asker
    (ASK, {}, -32021),  # input-capable, but not for sampling
    ({"sampling": {}}, {"context": "thisServer"}, "input_required"),  # includeContext needs only `sampling`
])
async def test_sampling_capability_decision_on_a_stdio_like_session(caps: dict, args: dict, outcome: Any) -> None:
    up = upstream()
    response = await up.call(tools_call(1, "sample", caps, **args), ALICE, discard)
    if outcome == "input_required":
        assert response["result"]["resultType"] == "input_required"
    else:
        spec.modern("MissingRequiredClientCapabilityError", response)
        assert response["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    await up.aclose()


async def test_lease_wait_has_a_deadline_and_a_named_error() -> None:
    up = upstream(limits=Limits(per_identity_sessions=1), request_timeout=0.2)
    assert "result" in await up.call(tools_call(1, "echo", ASK), ALICE, discard)
    [session] = up.pool.sessions.values()
    session.lease = 99  # a running input-capable call holds the identity's only lease
    waiter = await up.call(tools_call(2, "echo", ASK), ALICE, discard)
    assert waiter["error"]["code"] == LIMIT_ERROR and waiter["error"]["data"] == {"limit": "per_identity_sessions"}
    spec.modern("JSONRPCErrorResponse", waiter)
    assert up.status()["refused"] == {"lease_wait": 1}
    await up.aclose()


async def test_total_session_cap_is_a_named_error() -> None:
    bank = TransportBank()
    up = upstream(bank, limits=Limits(total_sessions=1))
    blocker = asyncio.ensure_future(up.call(tools_call(1, "block"), ALICE, discard))
    await asyncio.wait_for(bank.blocking.wait(), 10)
    refused = await up.call(tools_call(2, "echo"), CallContext(principal="bob"), discard)
    assert refused["error"] == {"code": LIMIT_ERROR, "message": "Upstream session limit reached (1)",
                                "data": {"limit": "upstream_sessions"}}
    assert up.status()["refused"] == {"upstream_sessions": 1}
    bank.made[0].server.release.set()
    assert "result" in await blocker
    await up.aclose()


async def test_a_frame_that_cannot_be_sent_releases_the_lease() -> None:
    up = upstream(limits=Limits(per_identity_sessions=1))
    deep: Any = "x"
    for _ in range(300):
        deep = [deep]
    with pytest.raises(TypeError):
        await up.call(tools_call(1, "echo", ASK, text=deep), ALICE, discard)
    after = await up.call(tools_call(2, "echo", ASK, text="fine"), ALICE, discard)
    assert after["result"]["content"][0]["text"] == "fine"
    await up.aclose()


async def test_session_loss_fails_calls_in_flight_and_the_next_call_reinitializes() -> None:
    bank = TransportBank()
    up = upstream(bank)
    blocked = asyncio.ensure_future(up.call(tools_call(1, "block"), ALICE, discard))
    await asyncio.wait_for(bank.blocking.wait(), 10)
    await lose(bank.made[0])
    failed = await blocked
    assert failed["error"]["code"] == -32603 and "fake server died" in failed["error"]["message"]
    assert (await up.call(tools_call(2, text="back"), ALICE, discard))["result"]["content"][0]["text"] == "back"
    assert bank.made[0].opened == 2 and up.status()["restarts"] == 1
    await up.aclose()


async def test_listen_relays_list_changed_and_refcounts_subscriptions() -> None:
    bank = TransportBank()
    up = upstream(bank)
    events: asyncio.Queue[Message] = asyncio.Queue()

    async def emit(msg: Message) -> None:
        events.put_nowait(msg)

    listen = spec.example("SubscriptionsListenRequest")
    tasks = [asyncio.ensure_future(up.call({**listen, "id": i}, ALICE, emit)) for i in (1, 2)]
    for _ in tasks:
        spec.modern("SubscriptionsAcknowledgedNotification", await asyncio.wait_for(events.get(), 5))
    server = bank.made[0].server
    assert server.subscribed == ["file:///project/config.json"]  # two listeners, one upstream subscription
    await server.notify("notifications/tools/list_changed")
    got = [await asyncio.wait_for(events.get(), 5) for _ in tasks]
    for note in got:
        spec.modern("ToolListChangedNotification", note)
    tasks[0].cancel()
    await asyncio.gather(tasks[0], return_exceptions=True)
    assert not [m for m in server.received if m.get("method") == "resources/unsubscribe"]
    await up.aclose()
    assert (await tasks[1])["result"]["resultType"] == "complete"
    assert jsonrpc.is_response(await tasks[1])


async def test_sessions_view_exposes_the_initialize_result() -> None:
    up = upstream()
    await up.start()
    [[session]] = up.sessions.values()
    assert session.init_result["serverInfo"] == {"name": "FakeLegacy", "version": "1.0.0"}
    await up.aclose()


async def test_many_identities_never_exceed_the_session_cap() -> None:
    bank = TransportBank()
    up = upstream(bank, limits=Limits(total_sessions=4))
    busy = [asyncio.ensure_future(up.call(tools_call(i, "block"), CallContext(principal=f"busy{i}"), discard)) for i in range(4)]
    for _ in busy:
        await asyncio.wait_for(bank.blocked.get(), 10)
    refused = await up.call(tools_call(9, "echo"), CallContext(principal="late"), discard)
    assert refused["error"]["data"] == {"limit": "upstream_sessions"}  # promptly: every session is busy
    for t in bank.made:
        t.server.release.set()
    await asyncio.gather(*busy)
    answers = await asyncio.gather(*[up.call(tools_call(i, text=str(i)), CallContext(principal=f"id{i}"), discard)
                                     for i in range(40)])
    assert sum(1 for a in answers if "result" in a) >= 4 and bank.peak <= 4 and up.status()["sessions"] <= 4
    assert all(a["error"]["data"] == {"limit": "upstream_sessions"} for a in answers if "error" in a)
    await up.aclose()


async def test_an_answer_that_comes_while_the_round_closes_reaches_the_retry() -> None:
    up = upstream()
    ask = tools_call(1, "ask_and_go", {"roots": {}})
    first = await up.call(ask, ALICE, discard)
    assert first["result"]["resultType"] == "input_required"
    final = await up.call(retry(first, 2, ask, {k: {"roots": []} for k in first["result"]["inputRequests"]}), ALICE, discard)
    spec.modern("CallToolResultResponse", final)
    assert final["id"] == 2 and final["result"]["content"][0]["text"] == "went on"
    await up.aclose()


async def test_discover_is_answered_by_the_started_session_without_a_second_spawn() -> None:
    bank = TransportBank()
    up = upstream(bank)
    await up.start()
    discover = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": tools_call(0)["params"]["_meta"]}}
    response = await up.call(discover, CallContext(), discard)
    spec.modern("DiscoverResultResponse", response)
    assert len(bank.made) == 1
    await up.aclose()


async def test_a_call_past_the_request_timeout_is_answered_and_given_up_upstream() -> None:
    """The call's deadline (``deadline.Deadline``): the client gets -32603 "did not answer in time", the
    server is told (notifications/cancelled), the lease is back; an outside cancel stays a cancel."""
    bank = TransportBank()
    up = upstream(bank, request_timeout=0.3, limits=Limits(per_identity_sessions=1))
    late = await up.call(tools_call(1, "block", ASK), ALICE, discard)
    spec.modern("JSONRPCErrorResponse", late)
    assert late["error"]["code"] == -32603 and "did not answer in time" in late["error"]["message"]
    server = bank.made[0].server
    assert len(server.cancelled) == 1  # told upstream, with the bridge's own id
    server.release.set()
    after = await up.call(tools_call(2, "echo", ASK, text="next"), ALICE, discard)  # the one lease was given back
    assert after["result"]["content"][0]["text"] == "next"
    server.release.clear()
    bank.blocking.clear()
    outside = asyncio.ensure_future(up.call(tools_call(3, "block", ASK), ALICE, discard))
    await asyncio.wait_for(bank.blocking.wait(), 10)
    outside.cancel()  # the client went away: a cancel, never turned into a timeout answer
    with pytest.raises(asyncio.CancelledError):
        await outside
    assert len(server.cancelled) == 2
    await up.aclose()

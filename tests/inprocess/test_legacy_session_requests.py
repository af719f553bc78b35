"""#17.1 in process: a 2025 server that asks ``roots/list`` right after ``notifications/initialized``,
outside any call (as npm server-filesystem does). The request waits on its session for the session's
next input-capable call and reaches that call's caller as an ``inputRequests`` entry; the answer goes
upstream on the retry. A client that did not declare roots is answered -32601; a request no call comes
for is answered with an error at its deadline (never an empty root list)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from fake_legacy import TransportBank
from handoffs import tools_call

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.front.legacy import LegacyStdioSession
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND, Message
from mcp_eras.bridge.upstream.legacy import LegacyUpstream

import spec

pytestmark = pytest.mark.anyio
ALICE = CallContext(principal="alice")
ROOTS_CAPS = spec.example("ClientCapabilities", "roots-minimum-baseline-support.json")
ROOTS = spec.example("ListRootsResult", "single-root-directory.json")


def listen(caps: dict[str, Any]) -> Message:
    """A listen of the same identity as ``tools_call``: it opens the upstream session and is no call."""
    request = copy.deepcopy(spec.example("SubscriptionsListenRequest"))
    request["params"]["_meta"][eras.META_CLIENT_CAPABILITIES] = caps
    request["params"]["_meta"][eras.META_CLIENT_INFO] = {"name": "counter", "version": "1"}
    return request


async def session_asked(up: LegacyUpstream, bank: TransportBank, caps: dict[str, Any]) -> asyncio.Future[Message]:
    """Open the identity's upstream session with no call in flight; return once its server asked."""
    listening = asyncio.ensure_future(up.call(listen(caps), ALICE, discard))
    for _ in range(1000):  # the transport is made on the listen's first step
        if bank.made:
            break
        await asyncio.sleep(0)
    await asyncio.wait_for(bank.made[0].server.roots_asked.wait(), 10)
    return listening


async def stop(listening: asyncio.Future[Message], up: LegacyUpstream) -> None:
    listening.cancel()
    with pytest.raises(asyncio.CancelledError):
        await listening
    await up.aclose()


async def front_of(up: LegacyUpstream) -> tuple[LegacyStdioSession, Callable[[], Awaitable[Message]]]:
    """A 2025 client's initialized stdio session on the bridge (it declared roots with listChanged), and how to
    read what the bridge writes to it."""
    frames: asyncio.Queue[Message] = asyncio.Queue()

    async def write(msg: Message) -> None:
        spec.legacy("JSONRPCMessage", msg)
        await frames.put(msg)

    async def next_frame() -> Message:
        return await asyncio.wait_for(frames.get(), 10)

    front = LegacyStdioSession(up, Settings(request_timeout=10.0), write)
    await front.on_frame(jsonrpc.request(1, "initialize", {"protocolVersion": "2025-11-25",
                                                          "capabilities": {"roots": {"listChanged": True}},
                                                          "clientInfo": {"name": "fs-client", "version": "1"}}))
    assert "result" in await next_frame()
    await front.on_frame(jsonrpc.notification("notifications/initialized"))
    return front, next_frame


async def test_roots_asked_before_any_call_reach_the_next_caller_and_go_upstream() -> None:
    bank = TransportBank(roots_on_init=True)
    up = LegacyUpstream(bank, Settings(), name="fake")
    listening = await session_asked(up, bank, ROOTS_CAPS)
    server = bank.made[0].server
    assert server.roots is None and up.pool.sessions[next(iter(up.live))].held  # held, not answered
    call = tools_call(1, "allowed", ROOTS_CAPS)
    first = await up.call(call, ALICE, discard)
    spec.modern("CallToolResultResponse", first)
    assert list(first["result"]["inputRequests"].values()) == [{"method": "roots/list"}]
    key = next(iter(first["result"]["inputRequests"]))
    retry = {**call, "id": 2, "params": {**call["params"], "requestState": first["result"]["requestState"],
                                         "inputResponses": {key: ROOTS}}}
    final = await up.call(retry, ALICE, discard)
    # The client's answer reached the server before the call went upstream (issue #30: the first call sees them) ...
    assert final["result"]["content"][0]["text"] == ROOTS["roots"][0]["uri"]
    assert await asyncio.wait_for(server.answers.get(), 10) == {"jsonrpc": "2.0", "id": 1000, "result": ROOTS}
    # ... and so does the next call.
    again = await up.call(tools_call(3, "allowed", ROOTS_CAPS), ALICE, discard)
    assert again["result"]["content"][0]["text"] == ROOTS["roots"][0]["uri"]
    await stop(listening, up)


async def test_a_client_without_roots_is_answered_method_not_found() -> None:
    bank = TransportBank(roots_on_init=True)  # this server asks even a client that declared nothing
    up = LegacyUpstream(bank, Settings(), name="fake")
    listening = await session_asked(up, bank, {})
    answer = await asyncio.wait_for(bank.made[0].server.answers.get(), 10)
    assert answer["error"]["code"] == METHOD_NOT_FOUND
    spec.legacy("JSONRPCErrorResponse", answer)
    await stop(listening, up)


async def test_no_call_before_the_deadline_answers_an_error_not_an_empty_list() -> None:
    bank = TransportBank(roots_on_init=True)
    up = LegacyUpstream(bank, Settings(request_timeout=0.2), name="fake")
    listening = await session_asked(up, bank, ROOTS_CAPS)
    answer = await asyncio.wait_for(bank.made[0].server.answers.get(), 10)
    assert answer["error"]["code"] == INTERNAL_ERROR and "result" not in answer
    spec.legacy("JSONRPCErrorResponse", answer)
    assert not any(rec.held for rec in up.pool.sessions.values())
    await stop(listening, up)


async def test_a_2025_client_behind_the_bridge_gets_the_roots_request_for_real() -> None:
    """2025 client -> bridge (2025 front, canonical 2026, 2025 upstream) -> 2025 server: the server's
    roots/list outside any call reaches the client as a real server->client request during its call."""
    bank = TransportBank(roots_on_init=True)
    up = LegacyUpstream(bank, Settings(), name="fake")
    front, next_frame = await front_of(up)
    await front.on_frame(jsonrpc.request(2, "tools/call", {"name": "allowed", "arguments": {}}))
    question = await next_frame()
    spec.legacy("ListRootsRequest", question)
    await front.on_frame(jsonrpc.result_response(question["id"], ROOTS))
    answer = await next_frame()
    assert answer["id"] == 2 and answer["result"]["content"][0]["text"] == ROOTS["roots"][0]["uri"]  # ran after the answer
    # (the session the front opened for server/discover declared nothing: that one was answered -32601)
    server = next(t.server for t in bank.made if "roots" in t.server.received[0]["params"]["capabilities"])
    assert (await asyncio.wait_for(server.answers.get(), 10))["result"] == ROOTS
    await front.on_frame(jsonrpc.request(3, "tools/call", {"name": "allowed", "arguments": {}}))
    assert (await next_frame())["result"]["content"][0]["text"] == ROOTS["roots"][0]["uri"]
    for other in (t.server for t in bank.made if t.server is not server):
        assert (await asyncio.wait_for(other.answers.get(), 10))["error"]["code"] == METHOD_NOT_FOUND
    await front.aclose()
    await up.aclose()


async def test_a_2025_clients_roots_change_reaches_the_sessions_of_its_identity_only() -> None:
    """notifications/roots/list_changed from a 2025 client goes to the upstream sessions opened for its identity
    (they declared roots.listChanged); the server asks again, and the client's next call carries the new roots."""
    bank = TransportBank(roots_on_init=True)
    up = LegacyUpstream(bank, Settings(), name="fake")
    async def call(rid: int) -> Message:
        await front.on_frame(jsonrpc.request(rid, "tools/call", {"name": "allowed", "arguments": {}}))
        return await next_frame()

    front, next_frame = await front_of(up)
    question = await call(2)
    await front.on_frame(jsonrpc.result_response(question["id"], ROOTS))
    assert (await next_frame())["id"] == 2
    server = next(t.server for t in bank.made if "roots" in t.server.received[0]["params"]["capabilities"])
    assert server.received[0]["params"]["capabilities"]["roots"] == {"listChanged": True}
    assert (await call(3))["result"]["content"][0]["text"] == ROOTS["roots"][0]["uri"]
    others = [t.server for t in bank.made if t.server is not server]

    moved = {"roots": [{"uri": "file:///home/user/elsewhere", "name": "Elsewhere"}]}
    server.roots_asked.clear()
    await front.on_frame(jsonrpc.notification("notifications/roots/list_changed"))
    await asyncio.wait_for(server.roots_asked.wait(), 10)  # the server was told, and asked again
    assert [m["method"] for m in server.received if m.get("method") == "notifications/roots/list_changed"] == [
        "notifications/roots/list_changed"]
    for other in others:  # the session of another identity (the front's discover) was not told
        assert not any(m.get("method") == "notifications/roots/list_changed" for m in other.received)
    question = await call(4)
    spec.legacy("ListRootsRequest", question)
    await front.on_frame(jsonrpc.result_response(question["id"], moved))
    assert (await next_frame())["id"] == 4
    assert (await call(5))["result"]["content"][0]["text"] == moved["roots"][0]["uri"]
    await front.aclose()
    await up.aclose()

"""The 2025-11-25 Streamable HTTP front in process: the real Starlette app and ``LegacyHttpFront`` over a
``ListeningUpstream`` (tests/inprocess/legacy_front_fakes.py). Every frame the front sends is validated against the 2025-11-25 schema.

Covers the 2025 session rules (2025-11-25 basic/transports.mdx, basic/lifecycle.mdx): initialize, ping,
logging/setLevel, request-id reuse, subscribe -> upstream listen, make-before-break replacement, re-listen
invalidation, expiry, DELETE, 404 for unknown / foreign sessions, 400 without a session, MRTR as real
server->client requests, cancellation, Last-Event-ID replay.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import legacy_front_fakes as fakes
import pytest
from legacy_front_asgi import LegacyClient

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front import legacy_http, legacy_runner
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.front.legacy import LegacyHttpFront
from mcp_eras.bridge.translate import jsonrpc

import spec

pytestmark = pytest.mark.anyio

CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}


def check(frame: dict[str, Any]) -> dict[str, Any]:
    """Every frame a 2025 client receives is a valid 2025-11-25 JSON-RPC message."""
    spec.legacy("JSONRPCMessage", frame)
    return frame


class Env:
    def __init__(self, upstream: fakes.ListeningUpstream, front: LegacyHttpFront, app: Any) -> None:
        self.upstream = upstream
        self.front = front
        self.app = app
        self.clients: list[LegacyClient] = []

    def client(self, authorization: str | None = None) -> LegacyClient:
        c = LegacyClient(self.app, authorization)
        self.clients.append(c)
        return c


@contextlib.asynccontextmanager
async def make_env(upstream: fakes.ListeningUpstream | None = None, **overrides: Any) -> AsyncIterator[Env]:
    settings = Settings(request_timeout=10.0, connect_timeout=5.0, session_idle_timeout=600.0, **overrides)
    upstream = upstream or fakes.ListeningUpstream()
    front = LegacyHttpFront(upstream, settings)
    e = Env(upstream, front, build_app(settings, upstream, front))
    try:
        yield e
    finally:
        for c in e.clients:
            await c.aclose()
        await front.aclose()


@pytest.fixture
async def env() -> AsyncIterator[Env]:
    async with make_env() as e:
        yield e


async def test_initialize_ping_and_unknown_methods(env: Env) -> None:
    client = env.client()
    result = await client.initialize(CAPS)
    assert result["protocolVersion"] == "2025-11-25"
    assert result["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
    assert check(await client.rpc(jsonrpc.request(1, "ping"))) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert check(await client.rpc(jsonrpc.request(2, "tasks/list")))["error"]["code"] == -32601
    again = await client.rpc(jsonrpc.request(3, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                               "clientInfo": {"name": "x", "version": "1"}}))
    assert "result" in check(again)  # on HTTP a new initialize opens a new session (stdio refuses it)
    # The upstream saw no ping: the bridge answers it.
    assert all(r["method"] != "ping" for r in env.upstream.requests)


async def test_requests_need_a_live_session(env: Env) -> None:
    client = env.client("Bearer alice")
    await client.initialize()
    nobody = env.client("Bearer alice")
    missing = await nobody.post(jsonrpc.request(1, "tools/list"))
    assert missing.status == 400
    assert check(await missing.json())["error"]["code"] == -32600
    nobody.session_id = "not-a-session"
    unknown = await nobody.post(jsonrpc.request(1, "tools/list"))
    assert unknown.status == 404
    check(await unknown.json())
    # Another principal must not learn the session exists.
    mallory = env.client("Bearer mallory")
    mallory.session_id = client.session_id
    assert (await mallory.post(jsonrpc.request(1, "tools/list"))).status == 404
    client.version = "2026-07-28"
    assert (await client.post(jsonrpc.request(1, "tools/list"))).status == 400
    client.version = None  # absent: 2025-03-26 assumed, still a legacy revision
    listed = await client.rpc(jsonrpc.request(2, "tools/list"))
    assert [t["name"] for t in check(listed)["result"]["tools"]] == [t["name"] for t in fakes.TOOLS]


async def test_request_ids_are_not_reused(env: Env) -> None:
    client = env.client()
    await client.initialize()
    assert "result" in check(await client.rpc(jsonrpc.request(7, "tools/list")))
    reused = await client.post(jsonrpc.request(7, "ping"))
    assert reused.status == 400
    assert check(await reused.json())["error"]["code"] == -32600
    assert "result" in await client.rpc(jsonrpc.request("7", "ping"))  # "7" is another id
    assert check(await client.rpc(jsonrpc.request(0, "ping")))["error"]["code"] == -32600  # initialize's id


async def test_set_level_filters_request_logs(env: Env) -> None:
    client = env.client()
    await client.initialize()
    silent = await client.post(jsonrpc.request(1, "tools/call", {"name": "log", "arguments": {}}))
    frames = [check(f) for f in await silent.messages()]
    assert [f.get("method") for f in frames if "method" in f] == []  # no setLevel: no logs
    assert "result" in await client.rpc(jsonrpc.request(2, "logging/setLevel", {"level": "error"}))
    loud = await client.post(jsonrpc.request(3, "tools/call", {"name": "log", "arguments": {}}))
    frames = [check(f) for f in await loud.messages()]
    levels = [f["params"]["level"] for f in frames if f.get("method") == "notifications/message"]
    assert levels == ["error", "critical", "alert", "emergency"]
    call = [r for r in env.upstream.requests if r["id"] == 3][0]
    assert call["params"]["_meta"]["io.modelcontextprotocol/logLevel"] == "error"
    bad = await client.rpc(jsonrpc.request(4, "logging/setLevel", {"level": "loud"}))
    assert check(bad)["error"]["code"] == -32602


async def test_progress_is_strictly_increasing(env: Env) -> None:
    client = env.client()
    await client.initialize()
    response = await client.post(jsonrpc.request(1, "tools/call", {"name": "jumpy", "arguments": {},
                                                                   "_meta": {"progressToken": "t"}}))
    frames = [check(f) for f in await response.messages()]
    assert [f["params"]["progress"] for f in frames if f.get("method") == "notifications/progress"] == [1, 2, 3]


async def test_subscribe_listen_and_make_before_break(env: Env) -> None:
    client = env.client()
    await client.initialize()
    (first,) = env.upstream.listens  # opened and acknowledged before the initialize result went out
    stream = await client.get_stream()
    assert stream.status == 200 and stream.is_sse
    assert env.upstream.listens[first]["filter"] == {"toolsListChanged": True, "promptsListChanged": True,
                                                     "resourcesListChanged": True}
    assert check(await client.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": "file:///a"}))) == {
        "jsonrpc": "2.0", "id": 1, "result": {}}
    # Replaced make-before-break: the new listen was acknowledged before the old one was cancelled.
    assert first in env.upstream.closed_listens
    (second,) = env.upstream.listens
    assert env.upstream.listens[second]["filter"]["resourceSubscriptions"] == ["file:///a"]
    assert await env.upstream.notify("notifications/resources/updated", {"uri": "file:///a"}) == 1
    _eid, note = await stream.next_event()
    assert check(note) == {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///a"}}
    await env.upstream.notify("notifications/tools/list_changed")
    _eid, note = await stream.next_event()
    assert check(note) == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    assert "result" in await client.rpc(jsonrpc.request(2, "resources/unsubscribe", {"uri": "file:///a"}))
    (third,) = env.upstream.listens
    assert "resourceSubscriptions" not in env.upstream.listens[third]["filter"]


async def test_subscribe_without_upstream_listen_is_method_not_found() -> None:
    async with make_env(fakes.ListeningUpstream(listen_supported=False)) as e:
        client = e.client()
        await client.initialize()
        out = await client.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": "file:///a"}))
        assert check(out)["error"]["code"] == -32601


async def test_relisten_invalidates_what_may_have_been_missed(env: Env) -> None:
    client = env.client()
    await client.initialize()
    stream = await client.get_stream()
    assert "result" in await client.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": "file:///a"}))
    (current,) = env.upstream.listens
    env.upstream.end_listen(current)  # the upstream closes the stream the session relies on
    await env.upstream.wait_listens(lambda listens: bool(listens) and current not in listens)
    seen = [check((await stream.next_event())[1]) for _ in range(4)]
    assert sorted(n["method"] for n in seen) == sorted([
        "notifications/tools/list_changed", "notifications/prompts/list_changed",
        "notifications/resources/list_changed", "notifications/resources/updated"])


async def test_delete_ends_the_session_and_its_listen(env: Env) -> None:
    client = env.client()
    await client.initialize()
    await client.get_stream()
    assert len(env.upstream.listens) == 1
    deleted = await client.send("DELETE")
    assert deleted.status == 200
    await env.upstream.wait_listens(lambda listens: not listens)
    gone = await client.post(jsonrpc.request(1, "ping"))
    assert gone.status == 404


async def test_idle_session_expires(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]

    class FakeTime:
        @staticmethod
        def monotonic() -> float:
            return clock[0]

    monkeypatch.setattr(legacy_http, "time", FakeTime)
    monkeypatch.setattr(legacy_runner, "time", FakeTime)
    client = env.client()
    await client.initialize()
    await client.get_stream()
    assert len(env.upstream.listens) == 1
    clock[0] += 599.0
    assert "result" in await client.rpc(jsonrpc.request(1, "ping"))  # used: the deadline moves
    clock[0] += 599.0
    assert "result" in await client.rpc(jsonrpc.request(2, "ping"))
    clock[0] += 601.0
    expired = await client.post(jsonrpc.request(3, "ping"))
    assert expired.status == 404
    assert "expired" in check(await expired.json())["error"]["message"]
    await env.upstream.wait_listens(lambda listens: not listens)
    assert client.session_id not in env.front.sessions


async def test_mrtr_round_as_a_real_server_request(env: Env) -> None:
    client = env.client()
    await client.initialize(CAPS)
    call = await client.post(jsonrpc.request(1, "tools/call", {"name": "ask", "arguments": {}}))
    assert call.is_sse
    _eid, question = await call.next_event()
    check(question)
    spec.legacy("ElicitRequest", question)
    answer = jsonrpc.result_response(question["id"], {"action": "accept", "content": {"name": "Ada"}})
    spec.legacy("ElicitResult", answer["result"])
    assert (await client.post(answer)).status == 202
    _eid, final = await call.next_event()
    assert check(final)["result"]["content"] == [{"type": "text", "text": "Ada"}]
    retry = [r for r in env.upstream.requests if r["method"] == "tools/call"][-1]
    assert retry["params"]["requestState"] == "s1"
    assert retry["params"]["inputResponses"] == {"name": {"action": "accept", "content": {"name": "Ada"}}}


async def test_mrtr_without_the_capability_fails_cleanly(env: Env) -> None:
    client = env.client()
    await client.initialize({})
    out = await client.rpc(jsonrpc.request(1, "tools/call", {"name": "ask", "arguments": {}}))
    assert check(out)["error"]["code"] == -32603


async def test_cancel_stops_the_upstream_call(env: Env) -> None:
    client = env.client()
    await client.initialize()
    call = await client.post(jsonrpc.request(9, "tools/call", {"name": "slow", "arguments": {}}))
    cancel = jsonrpc.notification("notifications/cancelled", {"requestId": 9, "reason": "user"})
    spec.legacy("CancelledNotification", cancel)
    await env.upstream.wait_request(9)
    assert (await client.post(cancel)).status == 202
    frames = await call.messages()
    assert all("result" not in f for f in frames)  # no response for a cancelled request
    assert 9 in env.upstream.cancelled_ids


async def test_resource_not_found_gets_the_2025_code(env: Env) -> None:
    client = env.client()
    await client.initialize()
    out = await client.rpc(jsonrpc.request(1, "resources/read", {"uri": "file:///missing"}))
    assert check(out)["error"] == {"code": -32002, "message": "Resource not found", "data": {"uri": "file:///missing"}}


async def test_last_event_id_replays_the_stream(env: Env) -> None:
    client = env.client(None)
    await client.initialize(CAPS)
    call = await client.post(jsonrpc.request(1, "tools/call", {"name": "ask", "arguments": {}}))
    event_id, question = await call.next_event()
    assert event_id is not None
    await call.close()  # the connection drops: in 2025 that is not a cancel
    prime = event_id.rsplit(".", 1)[0] + ".0"
    resumed = await client.get_stream({"last-event-id": prime})
    _eid, again = await resumed.next_event()
    assert again == question
    await client.post(jsonrpc.result_response(question["id"], {"action": "decline"}))
    _eid, final = await resumed.next_event()
    assert check(final)["result"]["content"] == [{"type": "text", "text": "decline"}]


async def test_malformed_initialize_and_tool_name(env: Env) -> None:
    client = env.client()
    bare = await client.post(jsonrpc.request(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}}))
    assert "mcp-session-id" not in bare.headers
    assert check(await bare.json())["error"]["code"] == -32602
    await client.initialize()
    out = await client.rpc(jsonrpc.request(2, "tools/call", {"name": 5, "arguments": {}}))
    assert check(out)["error"]["code"] == -32602
    assert all(r["method"] != "tools/call" for r in env.upstream.requests)


async def test_listen_follows_the_get_stream_and_subscriptions() -> None:
    async with make_env(legacy_listen_linger=0.0) as e:
        await _listen_follows(e)


async def _listen_follows(env: Env) -> None:
    client = env.client()
    await client.initialize()
    await env.upstream.wait_listens(lambda listens: not listens)  # no linger: an idle session holds no listen
    assert "result" in await client.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": "file:///a"}))
    (listen,) = env.upstream.listens  # a subscription needs a listen even without a GET stream (replayed later)
    assert env.upstream.listens[listen]["filter"]["resourceSubscriptions"] == ["file:///a"]
    await env.upstream.notify("notifications/resources/updated", {"uri": "file:///a"})
    stream = await client.get_stream()
    _eid, queued = await stream.next_event()  # the first GET takes what was queued since initialize
    assert check(queued)["params"] == {"uri": "file:///a"}
    assert "result" in await client.rpc(jsonrpc.request(2, "resources/unsubscribe", {"uri": "file:///a"}))
    (listen,) = env.upstream.listens  # the GET stream still wants list_changed
    assert "resourceSubscriptions" not in env.upstream.listens[listen]["filter"]
    await stream.close()  # the last GET stream leaves, nothing subscribed: the listen goes
    await env.upstream.wait_listens(lambda listens: not listens)


INIT = jsonrpc.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                         "clientInfo": {"name": "x", "version": "1"}})


async def test_session_caps_name_the_limit() -> None:
    async with make_env(legacy_sessions_max=2, legacy_sessions_per_principal=1) as e:
        alice, alice_again, bob, anonymous = e.client("Bearer alice"), e.client("Bearer alice"), e.client("Bearer bob"), e.client()
        await alice.initialize()
        second = await alice_again.post(INIT)
        assert second.status == 429
        err = check(await second.json())["error"]
        assert err["code"] == -32000 and err["data"]["limit"] == "legacy_sessions_per_principal"
        await bob.initialize()
        third = await anonymous.post(INIT)
        assert third.status == 503
        assert check(await third.json())["error"]["data"]["limit"] == "legacy_sessions_max"
        assert e.front.status()["refused"] == {"legacy_sessions_per_principal": 1, "legacy_sessions_max": 1}
        assert (await alice.send("DELETE")).status == 200
        await anonymous.initialize()  # room again


async def test_listens_are_capped() -> None:
    async with make_env(legacy_listens_max=1) as e:
        # Two principals never share a listen: the second needs one of its own.
        first, second = e.client("Bearer alice"), e.client("Bearer bob")
        await first.initialize()
        await second.initialize()
        await first.get_stream()
        assert e.front.listens.budget.open == 1
        out = await second.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": "file:///a"}))
        assert check(out)["error"]["code"] == -32000 and out["error"]["data"] == {"limit": "legacy_listens_max", "max": 1}
        stream = await second.get_stream()  # still served, without change notifications
        assert stream.status == 200 and e.front.listens.budget.open == 1
        assert e.front.status()["refused"]["legacy_listens_max"] >= 1


async def test_lingering_listens_are_reclaimed_at_the_cap() -> None:
    async with make_env(legacy_listens_max=1) as e:
        idle, active = e.client("Bearer alice"), e.client("Bearer bob")
        await idle.initialize()  # its listen lingers: nobody reads it
        (lingering,) = e.upstream.listens
        await active.initialize()
        await active.get_stream()
        assert lingering not in e.upstream.listens and len(e.upstream.listens) == 1 and e.front.listens.budget.open == 1
        assert "result" in await active.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": "file:///a"}))
        (listen,) = e.upstream.listens
        assert e.upstream.listens[listen]["filter"]["resourceSubscriptions"] == ["file:///a"]


async def test_idle_sessions_never_starve_a_new_subscriber() -> None:
    """Many abandoned sessions (initialize, nothing else) and a listen cap far below their number: a new session
    that subscribes still gets its notifications, and the upstream never holds more listens than the cap."""
    async with make_env(legacy_listens_max=8) as e:
        for n in range(60):
            await e.client(f"Bearer abandoned-{n}").initialize()
        assert len(e.upstream.listens) <= 8
        late = e.client("Bearer late")
        await late.initialize()
        stream = await late.get_stream()
        assert "result" in await late.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": "file:///late"}))
        assert await e.upstream.notify("notifications/resources/updated", {"uri": "file:///late"}) == 1
        _eid, note = await stream.next_event()
        assert check(note)["params"] == {"uri": "file:///late"}
        assert len(e.upstream.listens) <= 8


async def test_null_client_info_and_an_empty_protocol_version_header_are_refused(env: Env) -> None:
    """Issue #33 item 6. 2025-11-25 basic/lifecycle.mdx §Initialization: clientInfo is an Implementation (-32602
    otherwise); basic/transports.mdx §Protocol Version Header: an invalid version gets 400 (an empty one too)."""
    client = env.client()
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": None}
    refused = await client.post(jsonrpc.request(1, "initialize", params))
    assert "mcp-session-id" not in refused.headers and check(await refused.json())["error"]["code"] == -32602
    params["clientInfo"] = {"name": "x", "version": "1"}
    empty = await client.post(jsonrpc.request(1, "initialize", params), {"mcp-protocol-version": ""})
    assert empty.status == 400 and "mcp-session-id" not in empty.headers
    assert check(await empty.json())["error"]["code"] == -32600
    await client.initialize()
    later = await client.post(jsonrpc.request(2, "ping"), {"mcp-protocol-version": ""})
    assert later.status == 400 and check(await later.json())["error"]["code"] == -32600
    client.version = None  # absent: 2025-03-26 assumed
    assert "result" in check(await client.rpc(jsonrpc.request(3, "ping")))
    assert not env.upstream.requests or all(r["method"] != "initialize" for r in env.upstream.requests)

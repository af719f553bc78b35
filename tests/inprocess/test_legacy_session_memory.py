"""What a 2025 session of the Streamable HTTP front remembers is bounded in bytes and count, and freed when the
session ends (issue #33, acceptance 3). Measured from outside with tracemalloc where the bound is a size (each test
failed before its fix: 1,000-character ids were all remembered, every answer on an SSE stream was kept for the whole
retention, a GET stream nobody read kept every notification), and through the front's own tables otherwise.
The same scenarios against a real bridge process, by RSS: tests/stress/test_legacy_front_memory.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import tracemalloc
import weakref
from collections.abc import AsyncIterator, Iterator
from typing import Any

import legacy_front_fakes as fakes
import pytest
from legacy_front_asgi import LegacyClient

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front import event_stream, legacy_http
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.front.legacy import LegacyHttpFront
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.legacy_client import session as ls
from mcp_eras.bridge.translate.legacy_client import streams

import spec

pytestmark = pytest.mark.anyio

KIB = 1024


@contextlib.asynccontextmanager
async def front(idle: float = 600.0) -> AsyncIterator[tuple[fakes.ListeningUpstream, LegacyHttpFront, Any]]:
    settings = Settings(request_timeout=10.0, connect_timeout=5.0, session_idle_timeout=idle)
    upstream = fakes.ListeningUpstream()
    legacy = LegacyHttpFront(upstream, settings)
    try:
        yield upstream, legacy, build_app(settings, upstream, legacy)
    finally:
        await legacy.aclose()


async def session(app: Any) -> LegacyClient:
    client = LegacyClient(app)
    await client.initialize({"elicitation": {}})
    client.open.clear()  # (the test client's own list of responses: not the bridge's memory)
    return client


async def rpc(client: LegacyClient, msg: dict[str, Any]) -> dict[str, Any]:
    out = await client.rpc(msg)
    client.open.clear()
    return out


async def delete(client: LegacyClient) -> None:
    response = await client.send("DELETE")
    assert response.status == 200
    await response.body()
    client.open.clear()


class Traced:
    """Bytes Python holds now, above what it held at the start (after a full collection each time)."""

    def __init__(self) -> None:
        gc.collect()
        self.start = tracemalloc.get_traced_memory()[0]

    def grown(self, upstream: fakes.ListeningUpstream) -> int:
        upstream.calls.clear()  # (the fake's own records of what it was asked)
        upstream.requests.clear()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - self.start


@pytest.fixture
def traced() -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
    finally:
        tracemalloc.stop()


async def test_long_ids_are_refused_and_the_remembered_ids_stay_within_their_cap(traced: None) -> None:
    async with front() as (upstream, legacy, app):
        client = await session(app)
        too_long = await client.post(jsonrpc.request("x" * (ls.ID_MAX_CHARS + 1), "ping"))
        assert too_long.status == 400
        error = await too_long.json()
        spec.legacy("JSONRPCErrorResponse", error)
        assert error["error"]["code"] == -32600 and error["error"]["data"] == {"limit": "request_id_chars", "max": 1024}
        client.open.clear()
        before = Traced()
        for n in range(1000):  # 1,000 ids at the limit: about 1 MB of ids, of which the session keeps 256 KiB
            assert "result" in await rpc(client, jsonrpc.request(f"{n:04}" + "i" * (ls.ID_MAX_CHARS - 4), "ping"))
        assert before.grown(upstream) < 2 * ls.ID_MEMORY_CHARS
        await delete(client)
        assert before.grown(upstream) < 64 * KIB and not legacy.sessions


async def big_answer(client: LegacyClient, rid: int, size: int) -> str | None:
    """A call answered on an SSE stream (two progress notifications first) with a text of ``size`` bytes; the
    stream's priming event id."""
    request = jsonrpc.request(rid, "tools/call", {"name": "progress", "arguments": {"text": "a" * size},
                                                  "_meta": {"progressToken": rid}})
    call = await client.send("POST", bytes(memoryview(jsonrpc.dumps(request))))  # (orjson's buffer is far larger)
    assert call.is_sse
    first_id, _ = await call.next_event()
    frames = await call.messages()
    assert frames[-1]["id"] == rid and len(frames[-1]["result"]["content"][0]["text"]) == size
    client.open.clear()
    return first_id


async def test_answers_kept_for_replay_stay_within_the_session_cap_and_go_with_the_session(traced: None) -> None:
    async with front() as (upstream, legacy, app):
        client = await session(app)
        await big_answer(client, 100, 1)  # (the first SSE answer imports what serves it)
        before = Traced()
        for n in range(1, 61):  # 15 MiB of answers on SSE streams, all within the retention
            await big_answer(client, n, 256 * KIB)
        assert before.grown(upstream) < streams.REPLAY_SESSION_BYTES + 2 * 1024 * KIB
        (slot,) = legacy.sessions.values()
        assert slot.ledger.bytes <= streams.REPLAY_SESSION_BYTES and slot.ledger.dropped > 0
        await delete(client)
        assert before.grown(upstream) < 128 * KIB
        assert event_stream.PROCESS_LEDGER.live == 0 and event_stream.PROCESS_LEDGER.bytes == 0


async def test_the_process_cap_drops_the_oldest_of_every_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(event_stream.PROCESS_LEDGER, "limit", 1024 * KIB)
    async with front() as (_upstream, legacy, app):
        first, second = await session(app), await session(app)
        for n in range(1, 9):
            await big_answer(first, n, 128 * KIB)
            await big_answer(second, n, 128 * KIB)
        assert event_stream.PROCESS_LEDGER.bytes <= 1024 * KIB
        kept = [[key for key, s in slot.streams.items() if s.has_after(0)] for slot in legacy.sessions.values()]
        assert all(0 < len(k) < 8 and "p8" in k for k in kept), kept  # both lost their oldest, both keep their newest
        await delete(first)
        await delete(second)
    assert event_stream.PROCESS_LEDGER.live == 0


async def test_a_resume_past_the_replay_window_gets_an_error_for_its_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(legacy_http, "REPLAY_SESSION_BYTES", 512 * KIB)
    async with front() as (_upstream, _legacy, app):
        client = await session(app)
        first_id = await big_answer(client, 1, 200 * KIB)
        assert first_id is not None
        for n in range(2, 6):  # the first call's events were delivered: the oldest to go for space
            await big_answer(client, n, 200 * KIB)
        resumed = await client.get_stream({"last-event-id": first_id.rsplit(".", 1)[0] + ".0"})
        assert resumed.is_sse
        frames = await resumed.messages()
        assert len(frames) == 1
        spec.legacy("JSONRPCErrorResponse", frames[0])
        assert frames[0]["id"] == 1 and frames[0]["error"]["data"] == {"limit": "replay_window"}
        latest = await client.get_stream({"last-event-id": "p5.0"})  # within the window: replayed as it was
        assert (await latest.messages())[-1]["id"] == 5


async def test_a_get_stream_nobody_reads_keeps_the_newest_notifications_only(traced: None) -> None:
    async with front() as (upstream, legacy, app):
        client = await session(app)  # no GET stream: list changes wait for one (the listen lingers)
        await upstream.wait_listens(lambda listens: len(listens) == 1)
        await big_answer(client, 100, 1)  # (the first SSE answer imports what serves it)
        before = Traced()
        for _ in range(3 * streams.STREAM_EVENTS_MAX):
            assert await upstream.notify("notifications/tools/list_changed") == 1
        (slot,) = legacy.sessions.values()
        assert len(slot.get_stream.events) == streams.STREAM_EVENTS_MAX
        assert before.grown(upstream) < streams.STREAM_EVENTS_MAX * (streams.EVENT_OVERHEAD + 200)
        stream = await client.get_stream()
        for _ in range(streams.STREAM_EVENTS_MAX):  # the newest ones, delivered when a GET stream comes
            assert (await stream.next_event())[1]["method"] == "notifications/tools/list_changed"
        await stream.close()
        client.open.clear()
        await delete(client)
        assert event_stream.PROCESS_LEDGER.live == 0 and not legacy.sessions
        assert before.grown(upstream) < 512 * KIB  # (what remains is the test client's: its read buffers)


async def test_malformed_frames_on_long_lived_sessions_leave_nothing_behind(traced: None) -> None:
    async with front() as (upstream, legacy, app):
        clients = [await session(app) for _ in range(4)]
        junk: list[Any] = [b"\x00\xff{", b'{"jsonrpc":"2.0","id":1,"method":"ping"', {"jsonrpc": "2.0", "id": [1], "method": "ping"},
                           {"jsonrpc": "2.0", "method": 5}, {"jsonrpc": "2.0", "id": "r", "result": {"z": "z" * 100}},
                           {"jsonrpc": "1.0", "id": 3, "method": "tools/list "}]
        for client in clients:  # warm every path once
            for body in junk:
                await (client.send("POST", body) if isinstance(body, bytes) else client.post(body))
            client.open.clear()
        before = Traced()
        for n in range(500):
            for client in clients:
                body = junk[n % len(junk)]
                response = await (client.send("POST", body) if isinstance(body, bytes) else client.post(body))
                assert response.status < 500
                await response.body()
                client.open.clear()
        assert before.grown(upstream) < 64 * KIB
        assert len(legacy.sessions) == 4


async def test_an_ended_session_is_not_held_by_the_reaper() -> None:
    """The expiry reaper's loop variable held the last session it looked at (and every stream it kept) through its
    sleep: up to 30 s after DELETE with the default idle timeout."""
    async with front(idle=4.0) as (_upstream, legacy, app):  # the reaper looks every second
        client = await session(app)
        await big_answer(client, 1, 64 * KIB)
        (slot,) = legacy.sessions.values()
        gone = weakref.ref(slot)
        del slot
        await asyncio.sleep(1.5)  # (no deadline to meet: the reaper has looked at the live session at least once)
        await delete(client)
        gc.collect()
        assert gone() is None

"""A 2025 session keeps at most ``streams.POST_STREAMS_KEPT`` POST streams for replay (issue #33, acceptance 3).

Each call answered on an SSE stream left a stream record (about 1 KB, not counted by the byte ledgers) for the whole
retention: through a real bridge process, a session of elicitation round trips grew by 2 to 3 KB per call (6,000 calls:
+17 MB) although its kept events stayed within their byte cap. Past the count the oldest ended streams are forgotten.
"""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest
from test_legacy_session_memory import big_answer, delete, front, session

from mcp_eras.bridge.translate.legacy_client import streams

pytestmark = pytest.mark.anyio

KEPT = 16


async def test_a_session_keeps_at_most_the_newest_post_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streams, "POST_STREAMS_KEPT", KEPT)
    async with front() as (_upstream, legacy, app):
        client = await session(app)
        for n in range(1, 3 * KEPT + 1):
            await big_answer(client, n, 16)
        (slot,) = legacy.sessions.values()
        post = [key for key in slot.streams if key != streams.GET_KEY]
        assert len(post) <= KEPT, f"{len(post)} POST streams kept"
        newest = await client.get_stream({"last-event-id": f"{post[-1]}.0"})  # the newest stays resumable
        assert (await newest.messages())[-1]["id"] == 3 * KEPT
        oldest = await client.get_stream({"last-event-id": "p1.0"})  # forgotten: a fresh GET stream, not a replay
        assert oldest.is_sse
        await delete(client)
    assert not legacy.sessions


async def test_ended_post_streams_are_kept_compact_and_replay_what_the_live_stream_would() -> None:
    """An answered SSE stream nobody reads is kept as one buffer (``streams.EndedStream``): thousands of small objects
    per session pinned Python's allocator arenas after the sessions ended (issue #33 acceptance 3, 10,000 elicitation
    rounds: RSS stayed 19 MB above its start)."""
    async with front() as (_upstream, legacy, app):
        client = await session(app)
        for n in range(1, 4):
            await big_answer(client, n, 16)
        (slot,) = legacy.sessions.values()
        kept = {key: type(stream).__name__ for key, stream in slot.streams.items() if key != streams.GET_KEY}
        assert set(kept.values()) == {"EndedStream"}, kept
        key = list(kept)[-1]
        replay = await client.get_stream({"last-event-id": f"{key}.0"})
        messages = await replay.messages()
        assert [m.get("method", m.get("id")) for m in messages] == ["notifications/progress"] * 2 + [3]
        after_second = await client.get_stream({"last-event-id": f"{key}.2"})
        assert [m.get("id") for m in await after_second.messages()] == [3]  # only what followed the cursor
        await delete(client)
    assert not legacy.sessions


async def test_an_ended_session_is_freed_without_the_cycle_collector() -> None:
    """A session, its streams and everything they keep go when DELETE ends it, by reference counting: a cycle between
    the session and its slot left it all for the collector, which the bridge runs rarely (``_perf.serving``)."""
    async with front() as (_upstream, legacy, app):
        client = await session(app)
        await big_answer(client, 1, 64 * 1024)
        (slot,) = legacy.sessions.values()
        gone = weakref.ref(slot)
        del slot
        gc.disable()
        try:
            await delete(client)
            await asyncio.sleep(0)
            assert gone() is None, [type(r).__name__ for r in gc.get_referrers(gone())]
        finally:
            gc.enable()

"""The 2025 front's replayable streams (bridge.front.event_stream): batches, their end, and waits that leave
nothing behind."""

from __future__ import annotations

import asyncio

import pytest

from mcp_eras.bridge.front.event_stream import EventStream
from mcp_eras.bridge.translate import jsonrpc

pytestmark = pytest.mark.anyio


def note(n: int) -> dict[str, object]:
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"n": n}}


def kept(n: int) -> bytes:
    """An event as a stream keeps it: serialized once, when pushed."""
    return jsonrpc.dumps(note(n))


async def test_batches_take_everything_pending_and_tell_the_last() -> None:
    stream = EventStream("p1", 60.0)
    stream.push(note(1))
    stream.push(note(2))
    batches = stream.batches(0, 60.0)
    first = await anext(batches)
    assert first == [(1, kept(1)), (2, kept(2))] and not stream.ended(None)
    waiting = asyncio.ensure_future(anext(batches))
    await asyncio.sleep(0)
    assert not waiting.done()  # nothing new: it waits
    stream.push(note(3))
    stream.close()
    assert await waiting == [(3, kept(3))] and stream.ended(None)  # the last batch, known as such
    with pytest.raises(StopAsyncIteration):
        await anext(batches)
    assert [s for s, _ in await anext(stream.batches(1, 60.0))] == [2, 3]  # replay from a cursor


async def test_keepalives_and_cancelled_waits_leave_no_waiter_behind() -> None:
    stream = EventStream("g", 60.0)
    batches = stream.batches(0, 0.0)
    for _ in range(5):
        assert await anext(batches) is None  # silence: a keep-alive each time
    waiting = asyncio.ensure_future(stream.changed())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert stream._waiters == []  # noqa: SLF001 - the bound this test is about
    token = stream.take_over()
    owned = stream.batches(0, 60.0, token)
    pending = asyncio.ensure_future(anext(owned))
    await asyncio.sleep(0)
    stream.take_over()  # a newer consumer: the older one ends
    with pytest.raises(StopAsyncIteration):
        await pending
    assert stream.ended(token) and stream._waiters == []  # noqa: SLF001

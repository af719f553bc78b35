"""The per-call inbox of a 2025 upstream session and the response fast path that fills it
(``bridge.upstream.legacy_driver``): frames in arrival order, a cancelled wait loses nothing, responses
reach the call they answer (and nothing else) without a task switch."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcp_eras.bridge.translate.legacy_server.pool import SessionRec
from mcp_eras.bridge.upstream.legacy_driver import Inbox, LegacySession, LiveCall

pytestmark = pytest.mark.anyio


async def test_frames_come_out_in_arrival_order() -> None:
    inbox = Inbox()
    inbox.put_nowait({"n": 1})
    inbox.put_nowait({"n": 2})
    assert inbox.qsize() == 2 and not inbox.empty()
    assert [await inbox.get(), await inbox.get()] == [{"n": 1}, {"n": 2}]
    assert inbox.empty()


async def test_a_waiting_reader_is_woken_by_the_next_frame() -> None:
    inbox = Inbox()
    reader = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    assert not reader.done()
    inbox.put_nowait({"n": 1})
    assert await asyncio.wait_for(reader, 5) == {"n": 1}


async def test_a_cancelled_wait_loses_no_frame() -> None:
    inbox = Inbox()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(inbox.get(), 0.01)  # the deadline cancels the wait
    inbox.put_nowait({"n": 1})  # put after the cancelled wait: kept for the next reader
    assert await asyncio.wait_for(inbox.get(), 5) == {"n": 1}
    reader = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    reader.cancel()
    inbox.put_nowait({"n": 2})  # put while the cancelled reader is still waking: not consumed by it
    with pytest.raises(asyncio.CancelledError):
        await reader
    assert await asyncio.wait_for(inbox.get(), 5) == {"n": 2}


class _Transport:
    def bind(self, deliver: Any, on_lost: Any, take_response: Any = None) -> None:
        self.take_response = take_response


async def test_responses_reach_their_call_only() -> None:
    transport = _Transport()
    session = LegacySession(owner=None, transport=transport, rec=SessionRec("s1", "k", None))  # type: ignore[arg-type]
    call = session.open_call(LiveCall(3, "tools/call"))
    first = session.open_call(LiveCall(1, "tools/call"))
    take = transport.take_response
    assert take is not None
    for frame in ({"jsonrpc": "2.0", "id": 4, "result": {}},  # no such call: dropped
                  {"jsonrpc": "2.0", "id": "3", "result": {}},  # the bridge's ids are integers
                  {"jsonrpc": "2.0", "id": True, "result": {}},  # a bool is not an id, though True == 1
                  {"jsonrpc": "2.0", "id": [3], "result": {}},  # not hashable: dropped, not a crash
                  {"jsonrpc": "2.0", "id": 3, "result": {"ok": 1}}):
        assert take(frame) is True  # a response is always taken: routed or dropped, as route_inbound says
    assert call.queue.qsize() == 1 and first.queue.empty()
    assert await call.queue.get() == {"jsonrpc": "2.0", "id": 3, "result": {"ok": 1}}

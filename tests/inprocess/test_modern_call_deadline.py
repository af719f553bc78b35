"""The 2026 HTTP upstream's call deadline (``ModernHttpUpstream._exchange``, ``deadline.Deadline``): a call whose
server keeps its response stream open without ever answering is answered "timed out" at the request timeout (the
stream's keep-alive comments keep the read deadline from firing first); a cancel from outside still cancels."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import live_uvicorn
import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.upstream.modern import ModernHttpUpstream

pytestmark = pytest.mark.anyio
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
READ = {"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": "file:///a", "_meta": META}}


async def never_answers(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A 2026 server that opens an SSE answer and only ever sends keep-alive comments."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
    gone = asyncio.Event()

    async def watch() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        gone.set()

    watcher = asyncio.create_task(watch())
    while not gone.is_set():  # until the bridge drops the connection (the call given up)
        await send({"type": "http.response.body", "body": b": keep-alive\n\n", "more_body": True})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(gone.wait(), 0.05)
    await watcher


async def test_a_call_past_its_deadline_is_answered_and_the_task_is_not_left_cancelled() -> None:
    async with live_uvicorn.serving(never_answers, "h11") as port:
        upstream = ModernHttpUpstream(f"http://127.0.0.1:{port}/mcp", Settings(request_timeout=0.5))
        await upstream.start()
        try:
            answer = await asyncio.wait_for(upstream.call(dict(READ), CallContext(), discard), 10)
            assert answer["id"] == 7 and answer["error"]["message"] == "Upstream request timed out", answer
            task = asyncio.current_task()
            assert task is not None and task.cancelling() == 0  # the deadline's own cancel was taken back
            await asyncio.sleep(0.6)  # nothing of that call's deadline is left to fire at this task
        finally:
            await upstream.aclose()


async def test_a_cancel_from_outside_still_cancels_a_call_with_a_deadline() -> None:
    async with live_uvicorn.serving(never_answers, "h11") as port:
        upstream = ModernHttpUpstream(f"http://127.0.0.1:{port}/mcp", Settings(request_timeout=30))
        await upstream.start()
        try:
            call = asyncio.create_task(upstream.call(dict(READ), CallContext(), discard))
            await asyncio.sleep(0.3)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(call, 10)
        finally:
            await upstream.aclose()

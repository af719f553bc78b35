"""The stdio front in process: ``serve_stdio`` over an in-memory reader/writer and a ``FakeUpstream``.
Every frame it writes is a schema-valid 2026 message."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from fakes import FakeUpstream

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.stdio import serve_stdio

import spec

pytestmark = pytest.mark.anyio


class Out:
    """A stdout stand-in: frames as they are written, and a queue to await them."""

    def __init__(self) -> None:
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def write(self, data: bytes) -> None:
        for line in data.splitlines():
            self.frames.put_nowait(json.loads(line))

    def flush(self) -> None:
        return None

    async def next(self) -> dict[str, Any]:
        return await asyncio.wait_for(self.frames.get(), 10)


def call(rid: Any, name: str = "echo", **meta: Any) -> bytes:
    request = copy.deepcopy(spec.example("CallToolRequest"))
    request["id"] = rid
    request["params"].update({"name": name, "arguments": {"text": f"t{rid}"}})
    request["params"]["_meta"].update(meta)
    return json.dumps(request).encode() + b"\n"


async def start(upstream: FakeUpstream) -> tuple[asyncio.StreamReader, Out, asyncio.Task[None]]:
    reader, out = asyncio.StreamReader(), Out()
    task = asyncio.ensure_future(serve_stdio(upstream, Settings(), None, reader, out))
    return reader, out, task


async def finish(reader: asyncio.StreamReader, task: asyncio.Task[None], upstream: FakeUpstream) -> None:
    reader.feed_eof()
    await asyncio.wait_for(task, 10)
    assert upstream.closed == 1


async def test_calls_notifications_and_bad_frames() -> None:
    upstream = FakeUpstream()
    reader, out, task = await start(upstream)
    reader.feed_data(call(1, "progress", progressToken="p"))
    for _ in range(2):
        spec.modern("ProgressNotification", await out.next())
    spec.modern("CallToolResultResponse", await out.next())
    reader.feed_data(b"{not json\n")
    parse_error = await out.next()
    spec.modern("JSONRPCErrorResponse", parse_error)
    assert parse_error["error"]["code"] == -32700 and "id" not in parse_error
    reader.feed_data(b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"x": ' + b"[" * 500 + b"]" * 500 + b"}}\n")
    deep = await out.next()
    spec.modern("JSONRPCErrorResponse", deep)
    assert deep["error"]["code"] == -32600 and len(upstream.calls) == 1
    reader.feed_data(call(2))
    assert (await out.next())["result"]["content"][0]["text"] == "t2"  # still serving
    await finish(reader, task, upstream)


async def test_cancel_stops_the_call_and_nothing_more_is_sent_for_it() -> None:
    upstream = FakeUpstream()
    reader, out, task = await start(upstream)
    reader.feed_data(call("h", "hang"))
    await asyncio.wait_for(upstream.hanging.wait(), 10)
    reader.feed_data(call("h", "echo"))  # the same id while in flight
    dup = await out.next()
    spec.modern("JSONRPCErrorResponse", dup)
    assert dup["id"] == "h" and dup["error"]["code"] == -32600
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "h"}}
    reader.feed_data(json.dumps(cancel).encode() + b"\n")
    await asyncio.wait_for(upstream.cancelled.wait(), 10)
    reader.feed_data(call(3))
    assert (await out.next())["id"] == 3  # the next frame answers the next request, not "h"
    await finish(reader, task, upstream)


async def test_an_unreachable_upstream_answers_each_request_instead_of_closing_the_pipe() -> None:
    """A client waiting on its first answer gets one (issue #35: the stdio front never exits with a request unanswered):
    the upstream's start fails, each request tries it again and is answered with the error. A session that ended
    without the upstream ever answering still ends the bridge with the error (a misconfigured server is reported)."""
    from mcp_eras.bridge.core import UpstreamError
    from mcp_eras.bridge.upstream.factory import AutoUpstream, Target

    upstream = AutoUpstream(Target(url="http://127.0.0.1:9/mcp"), Settings(connect_timeout=2.0, probe_timeout=2.0))
    reader, out = asyncio.StreamReader(), Out()
    task = asyncio.ensure_future(serve_stdio(upstream, Settings(), None, reader, out))
    for rid in (1, 2):
        reader.feed_data(call(rid))
        answer = await out.next()
        assert answer["id"] == rid and answer["error"]["code"] == -32603 and "127.0.0.1:9" in answer["error"]["message"]
        spec.modern("JSONRPCErrorResponse", answer)
    reader.feed_eof()
    with pytest.raises(UpstreamError, match="127.0.0.1:9"):  # never reached: the bridge then exits with the error
        await asyncio.wait_for(task, 10)

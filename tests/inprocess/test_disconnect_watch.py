"""Disconnect = cancel on the 2026 front (2026-07-28 basic/transports/streamable-http.mdx §Cancellation),
served by a real uvicorn on loopback with the bridge's protocol (h11 and, when installed, httptools): a
client that hangs up before any answer cancels the upstream call; the protocol's callback is used (no
task waits in ``receive()``) and is removed again after each call; ``Expect: 100-continue`` still works
when its value carries trailing whitespace (the protocol strips field values once per request head)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import live_uvicorn
import orjson
import pytest
from fakes import FakeUpstream

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front import h11_guard
from mcp_eras.bridge.front.http import build_app

pytestmark = pytest.mark.anyio
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


@pytest.fixture(params=["h11", "httptools"])
def base(request: pytest.FixtureRequest) -> type:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    if request.param == "h11":
        return H11Protocol
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:
        pytest.skip("httptools is not installed (mcp-eras[fast])")
    return HttpToolsProtocol


@contextlib.asynccontextmanager
async def serving(base: type, upstream: FakeUpstream) -> AsyncIterator[tuple[int, list[Any]]]:
    """The bridge's app on a real uvicorn; yields the port and the protocol instances made so far."""
    made: list[Any] = []
    protocol = h11_guard.header_timeout_protocol(10, base)

    def factory(*args: Any, **kwargs: Any) -> Any:
        made.append(protocol(*args, **kwargs))
        return made[-1]

    async with live_uvicorn.serving(build_app(Settings(), upstream), factory) as port:  # type: ignore[arg-type]
        yield port, made


def post(port: int, name: str, extra: bytes = b"", body_follows: bool = True, **meta: Any) -> tuple[bytes, bytes]:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": name, "arguments": {"text": "hi"}, "_meta": {**META, **meta}}})
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
            f"Mcp-Method: tools/call\r\nMcp-Name: {name}\r\nContent-Length: {len(body)}\r\n").encode() + extra + b"\r\n"
    return head, body


class Chatty(FakeUpstream):
    """``progress_hang``: one progress notification (so the answer is an SSE stream), then hangs; ``unasked``: two
    notifications the request did not ask for, then its answer."""

    async def call(self, request: Any, ctx: Any, emit: Any) -> Any:
        name = (request.get("params") or {}).get("name")
        if name == "progress_hang":
            await emit({"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": "p", "progress": 1}})
            request = {**request, "params": {**request["params"], "name": "hang"}}
        if name == "unasked":
            for n in (1, 2):
                await emit({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": n}})
            request = {**request, "params": {**request["params"], "name": "echo"}}
        return await super().call(request, ctx, emit)


@pytest.mark.parametrize("tool", ["hang", "progress_hang"])
async def test_hanging_up_cancels_the_call(base: type, tool: str) -> None:
    """Before any answer (JSON pending) and during an SSE answer: one callback watches, no task waits in receive()."""
    upstream = Chatty()
    async with serving(base, upstream) as (port, made):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head, body = post(port, tool, **({"progressToken": "p"} if tool == "progress_hang" else {}))
        writer.write(head + body)
        async with asyncio.timeout(30):
            if tool == "progress_hang":
                status = await reader.readuntil(b"\r\n\r\n")
                assert b"text/event-stream" in status and await reader.readuntil(b"\n\n")  # the progress event
            await upstream.hanging.wait()
            assert [p._on_lost for p in made] == [[made[0]._on_lost[0]]]  # noqa: SLF001
            writer.close()
            await upstream.cancelled.wait()


async def test_notifications_nobody_asked_for_come_before_the_answer(base: type) -> None:
    """A request without a progress token or log level runs in the request's own task and is answered at once;
    notifications an upstream sends it anyway are not lost: they precede the response on an SSE answer."""
    upstream = Chatty()
    async with serving(base, upstream) as (port, made):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head, body = post(port, "unasked")
        writer.write(head.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n") + body)
        async with asyncio.timeout(30):
            answer = await reader.read()
        writer.close()
    assert answer.startswith(b"HTTP/1.1 200") and b"text/event-stream" in answer
    events = [orjson.loads(line[5:]) for line in answer.split(b"\n") if line.startswith(b"data:")]
    assert [e.get("method") for e in events] == ["notifications/message", "notifications/message", None]
    assert [e["params"]["data"] for e in events[:2]] == [1, 2] and events[2]["result"]["content"][0]["text"] == "hi"
    assert not made[0]._on_lost  # noqa: SLF001 - the callback was removed


async def test_the_callback_is_removed_after_each_answer(base: type) -> None:
    upstream = FakeUpstream()
    async with serving(base, upstream) as (port, made):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(3):  # keep-alive: three calls on one connection
            head, body = post(port, "echo")
            writer.write(head + body)
            async with asyncio.timeout(30):
                status = await reader.readuntil(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in status.split(b"\r\n") if line.lower().startswith(b"content-length")))
                answer = orjson.loads(await reader.readexactly(length))
            assert status.startswith(b"HTTP/1.1 200") and answer["result"]["content"][0]["text"] == "hi"
        assert len(made) == 1 and not made[0]._on_lost  # noqa: SLF001
        writer.close()


async def test_expect_100_continue_with_trailing_whitespace(base: type) -> None:
    upstream = FakeUpstream()
    async with serving(base, upstream) as (port, _):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head, body = post(port, "echo", b"Expect: 100-continue \t\r\n")
        writer.write(head)
        async with asyncio.timeout(30):
            interim = await reader.readuntil(b"\r\n\r\n")
            assert interim.startswith(b"HTTP/1.1 100"), interim
            writer.write(body)
            final = await reader.readuntil(b"\r\n\r\n")
        assert final.startswith(b"HTTP/1.1 200"), final
        writer.close()


def test_other_servers_fall_back_to_receive() -> None:
    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    assert h11_guard.disconnect_watcher(receive) is None

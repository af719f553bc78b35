"""A connection its client resets leaves no timer behind (bridge.front.h11_guard), on a real uvicorn server on loopback.

uvicorn (0.55) cancels its keep-alive timer only when a connection ends cleanly; after a reset (a client that closes
with our answer's bytes still unread, as an HTTP client does when it leaves an SSE stream early) the timer stayed
scheduled for ``timeout_keep_alive`` seconds and held the closed connection's protocol, parser, buffers and transport
until then. The bridge's protocol cancels it when the connection is lost, however it is lost.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from typing import Any

import live_uvicorn
import pytest
import test_h11_guard
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from mcp_eras.bridge.front.h11_guard import header_timeout_protocol

pytestmark = pytest.mark.anyio
base = test_h11_guard.base
"""The fixture: h11's protocol, and httptools' when installed."""


async def ok(request: object) -> PlainTextResponse:
    return PlainTextResponse("ok")


def keep_alive_timers(loop: asyncio.AbstractEventLoop) -> list[tuple[asyncio.TimerHandle, Any]]:
    """The scheduled keep-alive timers of the loop, with their protocol."""
    scheduled: list[asyncio.TimerHandle] = getattr(loop, "_scheduled", [])
    found = []
    for handle in scheduled:
        callback = getattr(handle, "_callback", None)
        if getattr(callback, "__name__", "") == "timeout_keep_alive_handler" and not handle.cancelled():
            found.append((handle, callback.__self__))
    return found


async def test_a_reset_connection_leaves_no_keep_alive_timer(base: type) -> None:
    loop = asyncio.get_running_loop()
    if not hasattr(loop, "_scheduled"):
        pytest.skip("the loop does not expose its timers")
    app = Starlette(routes=[Route("/", ok)])
    async with live_uvicorn.serving(app, header_timeout_protocol(30.0, base)) as port:
        before = {id(p) for _h, p in keep_alive_timers(loop)}
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        async with asyncio.timeout(10):
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200"), head
            await reader.readexactly(2)  # "ok": the response is complete, the connection idles (keep-alive)
            while not (mine := [(h, p) for h, p in keep_alive_timers(loop) if id(p) not in before]):  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        [(_handle, protocol)] = mine
        # A reset instead of a clean close (SO_LINGER 0): the server sees ECONNRESET, not an end of file.
        sock: socket.socket = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # its answer arrives unread, then the reset
        await asyncio.sleep(0.2)
        writer.transport.abort()
        async with asyncio.timeout(10):
            while protocol in protocol.connections:  # noqa: ASYNC110 - uvicorn's connection_lost takes it out
                await asyncio.sleep(0.01)
        left = [h for h, p in keep_alive_timers(loop) if p is protocol]
        assert not left, f"a keep-alive timer still holds the closed connection: {left}"
        assert protocol.timeout_keep_alive_task is None


async def test_a_closed_connection_is_freed_without_the_cycle_collector(base: type) -> None:
    """The lingering-close transport held its protocol and the protocol held it: every closed connection (a 2025 client
    that leaves each SSE answer unread closes one per call) left its protocol, parser and buffers for the cycle
    collector, which the bridge runs rarely (``_perf.serving``). Now they go when the connection does."""
    import gc
    import weakref

    app = Starlette(routes=[Route("/", ok)])
    async with live_uvicorn.serving(app, header_timeout_protocol(30.0, base)) as port:
        known = {id(p) for p in gc.get_objects() if isinstance(p, base)}
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        async with asyncio.timeout(10):
            await reader.readuntil(b"\r\n\r\n")
            await reader.readexactly(2)
        (protocol,) = [p for p in gc.get_objects() if isinstance(p, base) and id(p) not in known]
        gone = weakref.ref(protocol)
        del protocol
        gc.disable()
        try:
            writer.close()
            async with asyncio.timeout(10):
                while gone() is not None and gone() in gone().connections:  # noqa: ASYNC110
                    await asyncio.sleep(0.01)
            for _ in range(5):  # (a few loop turns: the transport's own close callbacks)
                await asyncio.sleep(0.01)
            assert gone() is None, "the closed connection's protocol waits for the cycle collector"
        finally:
            gc.enable()

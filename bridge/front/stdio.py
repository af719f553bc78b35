"""stdio front: newline-delimited JSON-RPC on stdin/stdout; logs go to stderr.

The first frame decides the era of the connection (``initialize`` means 2025; a request with the
2026 ``_meta`` envelope means 2026) unless ``front_era`` pins it. What is done with each line and frame is decided
by ``mcp_eras.bridge.translate.fronts``; this shell reads, writes and runs the requests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream, UpstreamError
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.fronts import Cancel, Deliver, Reply, Run, Skip, StdioFront, modern_stdio_frame
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId
from mcp_eras.bridge.translate.legacy_server.listen import LISTEN, listen_completion

log = logging.getLogger("mcp_bridge.stdio")
DRAIN_SECONDS = 2.0
"""How long a SIGTERM waits for the completions of open listens to be written."""

Write = Callable[[Message], Awaitable[None]]


class FrameHandler(Protocol):
    async def on_frame(self, msg: Message) -> None: ...
    async def aclose(self) -> None: ...


class ModernStdioSession:
    """A 2026-07-28 client on stdio: requests run concurrently; ``notifications/cancelled`` cancels one."""

    def __init__(self, upstream: Upstream, settings: Settings, write: Write) -> None:
        self.upstream = upstream
        self.settings = settings
        self.write = write
        self.tasks: dict[RequestId, asyncio.Task[None]] = {}
        self.ctx = CallContext()
        self.listens: set[RequestId] = set()

    async def on_frame(self, msg: Message) -> None:
        step = modern_stdio_frame(msg, self.tasks)
        if isinstance(step, Run):
            self.tasks[msg["id"]] = task = asyncio.create_task(self._run(msg))
            if msg["method"] == LISTEN:
                self.listens.add(msg["id"])
                task.add_done_callback(lambda _t, rid=msg["id"]: self.listens.discard(rid))
        elif isinstance(step, Cancel):
            self.tasks[step.request_id].cancel()
        elif isinstance(step, Reply):
            await self.write(step.frame)
        elif jsonrpc.is_response(msg):
            log.warning("ignoring a response from a 2026 client (clients do not send responses)")

    async def _run(self, msg: Message) -> None:
        rid = msg["id"]
        try:
            response = await self.upstream.call(msg, self.ctx, self.write)
        except asyncio.CancelledError:
            # Cancelled by the client: nothing further is sent for that id
            # (2026-07-28 basic/patterns/cancellation.mdx).
            self.tasks.pop(rid, None)
            return
        except Exception as exc:  # noqa: BLE001
            log.exception("upstream call failed")
            response = jsonrpc.bridge_failure(rid, exc)
        self.tasks.pop(rid, None)
        await self.write(response)

    async def drain(self) -> None:
        """The bridge is stopping: each open listen ends with its completion result (2026-07-28 schema
        ``SubscriptionsListenResult``; without it the client would read the end as an abrupt drop)."""
        for rid in list(self.listens):
            task = self.tasks.get(rid)
            if task is not None and not task.done():
                task.cancel()  # (``_run`` then writes nothing for it)
                await self.write(listen_completion(rid))

    async def aclose(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()
        for task in list(self.tasks.values()):
            with contextlib.suppress(BaseException):
                await task


async def serve_stdio(
    upstream: Upstream,
    settings: Settings,
    legacy_factory: Callable[[Upstream, Settings, Write], FrameHandler] | None = None,
    reader: asyncio.StreamReader | None = None,
    writer: Any = None,
) -> None:
    """Serve one client on stdin/stdout until EOF."""
    loop = asyncio.get_running_loop()
    reader_is_stdin = reader is None
    if reader is None:
        reader = asyncio.StreamReader(limit=settings.max_line_bytes)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = writer if writer is not None else sys.stdout.buffer
    lock = asyncio.Lock()
    served = False

    async def write(msg: Message) -> None:
        nonlocal served
        if not served and "result" in msg:
            served = True
        data = jsonrpc.dumps(msg) + b"\n"
        async with lock:
            out.write(data)
            flush = getattr(out, "drain", None) or getattr(out, "flush", None)
            if flush is not None:
                result = flush()
                if asyncio.iscoroutine(result):
                    await result

    handler: FrameHandler | None = None
    front = StdioFront(settings.front_era, legacy_factory is not None, settings.max_line_bytes)
    if reader_is_stdin:  # (never in a process that only embeds this front: the signal is the process's)
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(_drain_then_stop(loop, handler)))
    failed_start: UpstreamError | None = None
    try:
        await upstream.start()
    except UpstreamError as exc:
        # The client is waiting for answers: it gets one per request (each retries the upstream) instead of a closed pipe.
        log.warning("upstream not reachable: %s (each request tries again)", exc)
        failed_start = exc
    try:
        while True:
            try:
                line = await reader.readline()
            except ValueError:
                step: Skip | Reply | Deliver = front.oversized()
            else:
                if not line:
                    break
                step = front.on_line(line)
            if isinstance(step, Reply):
                await write(step.frame)
                if step.stop:
                    break
                continue
            if isinstance(step, Skip):
                continue
            if step.era == eras.LEGACY:
                assert legacy_factory is not None
                handler = legacy_factory(upstream, settings, write)
            elif step.era is not None:
                handler = ModernStdioSession(upstream, settings, write)
            assert handler is not None
            await handler.on_frame(step.msg)
    finally:
        if reader_is_stdin:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signal.SIGTERM)
        if handler is not None:
            await handler.aclose()
        await upstream.aclose()
    if failed_start is not None and not served:
        raise failed_start  # the session ended without the upstream ever answering: the bridge exits with its error


async def _drain_then_stop(loop: asyncio.AbstractEventLoop, handler: FrameHandler | None) -> None:
    """SIGTERM: a 2026 client's open listens get their completion (within 2 s), then the signal takes its
    ordinary course (the process ends as it always did on SIGTERM)."""
    if isinstance(handler, ModernStdioSession):
        with contextlib.suppress(Exception):
            await asyncio.wait_for(handler.drain(), DRAIN_SECONDS)
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.remove_signal_handler(signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGTERM)

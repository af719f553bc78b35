"""stdio front: newline-delimited JSON-RPC on stdin/stdout; logs go to stderr.

The first frame decides the era of the connection (``initialize`` means 2025; a request with the
2026 ``_meta`` envelope means 2026) unless ``front_era`` pins it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream
from mcp_eras.bridge.translate import eras, jsonrpc, modern_front
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, FrameError, Message, RequestId

log = logging.getLogger("mcp_bridge.stdio")

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

    async def on_frame(self, msg: Message) -> None:
        if jsonrpc.is_notification(msg):
            if msg["method"] == "notifications/cancelled":
                rid = (msg.get("params") or {}).get("requestId")
                task = self.tasks.get(rid) if isinstance(rid, (str, int)) else None
                if task is not None:
                    task.cancel()
            return
        if jsonrpc.is_response(msg):
            log.warning("ignoring a response from a 2026 client (clients do not send responses)")
            return
        rid = msg["id"]
        if rid in self.tasks:
            await self.write(jsonrpc.error_response(rid, INVALID_REQUEST, f"Invalid Request: id {rid!r} is already in flight"))
            return
        try:
            # A dual-era client whose server/discover timed out falls back to initialize on the same pipe.
            refusal = modern_front.initialize_refusal(msg)
            if refusal is not None:
                raise refusal
            modern_front.validate_request(msg)
        except FrameError as exc:
            await self.write(jsonrpc.error_response(rid, exc.code, exc.message, exc.data))
            return
        self.tasks[rid] = asyncio.create_task(self._run(msg))

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
            response = jsonrpc.error_response(rid, INTERNAL_ERROR, f"Internal error: {exc.__class__.__name__}")
        self.tasks.pop(rid, None)
        await self.write(response)

    async def aclose(self) -> None:
        for task in list(self.tasks.values()):
            task.cancel()
        for task in list(self.tasks.values()):
            with contextlib.suppress(BaseException):
                await task


def classify_first_frame(msg: Message, settings: Settings) -> str:
    if settings.front_era != "auto":
        return settings.front_era
    era = eras.frame_era(msg)
    return era or eras.MODERN


async def serve_stdio(
    upstream: Upstream,
    settings: Settings,
    legacy_factory: Callable[[Upstream, Settings, Write], FrameHandler] | None = None,
    reader: asyncio.StreamReader | None = None,
    writer: Any = None,
) -> None:
    """Serve one client on stdin/stdout until EOF."""
    loop = asyncio.get_running_loop()
    if reader is None:
        reader = asyncio.StreamReader(limit=settings.max_line_bytes)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = writer if writer is not None else sys.stdout.buffer
    lock = asyncio.Lock()

    async def write(msg: Message) -> None:
        data = jsonrpc.dumps(msg) + b"\n"
        async with lock:
            out.write(data)
            flush = getattr(out, "drain", None) or getattr(out, "flush", None)
            if flush is not None:
                result = flush()
                if asyncio.iscoroutine(result):
                    await result

    handler: FrameHandler | None = None
    await upstream.start()
    try:
        while True:
            try:
                line = await reader.readline()
            except ValueError:
                await write(jsonrpc.error_response(None, INVALID_REQUEST, f"Frame exceeds {settings.max_line_bytes} bytes"))
                # The rest of the oversized line is unreadable framing: stop this connection.
                break
            if not line:
                break
            line = line.strip()
            if not line:
                continue
            try:
                msg = jsonrpc.parse_frame(line)
            except FrameError as exc:
                await write(exc.to_response())
                continue
            if handler is None:
                era = classify_first_frame(msg, settings)
                if era == eras.LEGACY:
                    if legacy_factory is None:
                        await write(jsonrpc.error_response(msg.get("id"), INVALID_REQUEST,
                                                           "This bridge front serves 2026-07-28 clients only"))
                        continue
                    handler = legacy_factory(upstream, settings, write)
                else:
                    handler = ModernStdioSession(upstream, settings, write)
            await handler.on_frame(msg)
    finally:
        if handler is not None:
            await handler.aclose()
        await upstream.aclose()

"""The 2025-11-25 stdio front (2025-11-25 basic/transports.mdx §stdio): one client, one session, frames in order.

Moves frames only; the session rules are ``mcp_eras.bridge.translate.legacy_client.session``'s and the per-request tasks
``mcp_eras.bridge.front.legacy_runner``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream
from mcp_eras.bridge.front.legacy_listener import ListenHub
from mcp_eras.bridge.front.legacy_runner import LegacyFrontSession, Send, start_session
from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate.eras import LEGACY
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.legacy_client import listen as ll
from mcp_eras.bridge.translate.legacy_client import session as ls


class LegacyStdioSession:
    """One 2025 client on stdio. ``on_frame`` is called for every client frame in order; it never blocks."""

    def __init__(self, upstream: Upstream, settings: Settings, write: Send) -> None:
        self.upstream = upstream
        self.settings = settings
        self.write = write
        self.session: LegacyFrontSession | None = None
        self.ctx = CallContext(client_era=LEGACY)
        self._init_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._write_lock = asyncio.Lock()
        self._closed = False

    async def _send(self, msg: Message) -> None:
        async with self._write_lock:
            await self.write(msg)

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def on_frame(self, msg: Message) -> None:
        if self._closed:
            return
        if jsonrpc.is_response(msg):
            if self.session is not None:
                self.session.on_response(msg)
            return
        if jsonrpc.is_notification(msg):
            if self.session is not None:
                await self.session.on_notification(msg)
            return
        rid = msg["id"]
        if msg.get("method") == "initialize":
            if self._init_task is not None:
                await self._send(ls.ALREADY_INITIALIZED.response(rid))
                return
            self._init_task = self._spawn(self._initialize(msg))
            return
        if self._init_task is None:
            await self._send(ls.before_initialize(msg))
            return
        self._spawn(self._request(msg))

    async def _initialize(self, msg: Message) -> None:
        listens = ListenHub(ll.ListenBudget(self.settings.legacy_listens_max))
        self.session, resp = await start_session(self.upstream, self.settings, msg, self.ctx, self._send, listens, streaming=True)
        await self._send(resp)

    async def _request(self, msg: Message) -> None:
        assert self._init_task is not None
        await asyncio.shield(self._init_task)
        session = self.session
        if session is None:
            await self._send(jsonrpc.error_response(msg["id"], errors.INVALID_REQUEST,
                                                    "Invalid Request: the session failed to initialize"))
            return
        task = session.begin(msg, self._send, self.ctx)
        if isinstance(task, ls.Refusal):
            await self._send(task.response(msg["id"]))
            return
        try:
            resp = await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():
                return  # cancelled by the client: no response (2025-11-25 basic/utilities/cancellation.mdx)
            raise
        await self._send(resp)

    async def aclose(self) -> None:
        self._closed = True
        if self.session is not None:
            await self.session.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

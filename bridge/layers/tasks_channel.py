"""Task channels of the direction A tasks shell (``mcp_eras.bridge.layers.tasks``): a dedicated 2025 upstream
session that carries one caller's task traffic (2025 tasks are bound to the session that created them), and the
``ServerView``: what a 2025 server declares, read without a task session."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
from collections.abc import Callable
from typing import Any, Protocol

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId
from mcp_eras.bridge.translate.legacy_server import frames as handshake
from mcp_eras.bridge.translate.legacy_server import task_routing as tr
from mcp_eras.bridge.upstream.legacy_transport import LegacyTransport

log = logging.getLogger("mcp_bridge.tasks")

ChannelKey = tuple[str | None, str]


@dataclasses.dataclass(frozen=True)
class ServerView:
    """What a 2025 server declares, read from the caller's pool session: enough for every request but a
    task-creating ``tools/call`` (a server without tasks never needs a task session)."""

    server_caps: dict[str, Any]


class ChannelOwner(Protocol):
    """What a task channel needs of the tasks layer that opens it (``TasksUpstream``): its settings and clock, and
    where the server's requests, status notifications and the session's end go."""

    settings: Settings
    now_ms: Callable[[], int]

    async def on_input(self, channel: TaskChannel, msg: Message) -> None: ...

    def on_status(self, channel: TaskChannel, params: Any) -> None: ...

    def on_channel_lost(self, channel: TaskChannel, why: str) -> None: ...


class TaskChannel:
    """One initialized 2025 session carrying task traffic."""

    def __init__(self, owner: ChannelOwner, transport: LegacyTransport, key: ChannelKey, caps: dict[str, Any]) -> None:
        self.owner = owner
        self.transport = transport
        self.key = key
        self.caps = caps
        self.state = "new"
        self.server_caps: dict[str, Any] = {}
        self.tools: dict[str, str] | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Message]] = {}
        self._lock = asyncio.Lock()
        self._closing: asyncio.Task[None] | None = None
        self.last_used_ms = owner.now_ms()
        """When a request last started or ended on it, or a caller was handed it (idle sessions are closed)."""
        transport.bind(self._deliver, self._on_lost)

    def in_flight(self) -> int:
        return len(self._pending)

    async def ensure_ready(self) -> None:
        if self.state == "ready":
            return
        async with self._lock:
            if self.state == "ready":
                return
            await self.transport.open()
            self.state = "opening"
            settings = self.owner.settings
            resp = await self.request("initialize", tr.session_initialize(self.caps, settings.bridge_info()),
                                      settings.connect_timeout * 3)
            accepted = handshake.accepted_initialize(resp.get("result"))
            if accepted is None:
                raise UpstreamError(f"task session did not initialize: {resp.get('error') or resp.get('result')}")
            version, self.server_caps, _ = accepted
            self.transport.initialized(version)
            await self.transport.send(jsonrpc.notification("notifications/initialized"))
            self.tools = None
            self.state = "ready"

    async def request(self, method: str, params: Message | None, timeout: float | None = None) -> Message:
        """Send one request; the raw 2025 response (an error response on timeout or loss)."""
        rid = next(self._ids)
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        self.last_used_ms = self.owner.now_ms()
        try:
            await self.transport.send(jsonrpc.request(rid, method, params))
            return await asyncio.wait_for(fut, timeout or self.owner.settings.request_timeout)
        except TimeoutError:
            self.transport.abandon(rid)
            with contextlib.suppress(UpstreamError):
                await self.transport.send(tr.cancel_notice(rid))
            return tr.no_answer(rid, method)
        except asyncio.CancelledError:
            self.transport.abandon(rid)
            raise
        finally:
            self._pending.pop(rid, None)
            self.last_used_ms = self.owner.now_ms()

    async def send(self, msg: Message) -> None:
        await self.transport.send(msg)

    async def tool_support(self, name: str) -> str:
        if self.tools is None or name not in self.tools:
            self.tools = await self._list_tools()
        return self.tools.get(name, "forbidden")

    async def _list_tools(self) -> dict[str, str]:
        out: dict[str, str] = {}
        cursor: Any = None
        for _page in range(tr.MAX_TOOL_PAGES):
            support, cursor = tr.tools_page(await self.request("tools/list", {"cursor": cursor} if cursor else {}))
            out.update(support)
            if cursor is None:
                break
        return out

    async def _deliver(self, msg: Message, related: RequestId | None) -> None:
        kind = tr.inbound(msg)
        if kind == "response":
            rid = tr.own_request_id(msg)
            fut = self._pending.get(rid) if rid is not None else None
            if fut is not None and not fut.done():
                fut.set_result(msg)
        elif kind == "ping":
            await self.transport.send(jsonrpc.result_response(msg["id"], {}))
        elif kind == "input":
            await self.owner.on_input(self, msg)
        elif kind == "unknown":
            await self.transport.send(tr.method_not_found(msg))
        elif kind == "status":
            self.owner.on_status(self, msg.get("params"))
        elif kind == "tools_changed":
            self.tools = None

    async def _on_lost(self, why: str) -> None:
        if tr.session_over(self.state):
            return
        self.state = "lost"
        # This session is over: stop its transport (a stdio supervisor would respawn an orphan child);
        # the next use opens a new channel.
        self._closing = asyncio.get_running_loop().create_task(self.transport.close())
        for rid, fut in list(self._pending.items()):
            if not fut.done():
                fut.set_result(tr.session_lost(rid, why))
        self.owner.on_channel_lost(self, why)

    async def close(self) -> None:
        self.state = "closed"
        with contextlib.suppress(Exception):
            await self.transport.close()

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
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND, Message, RequestId
from mcp_eras.bridge.translate.legacy_server import frames as handshake
from mcp_eras.bridge.translate.legacy_server import tasks as tx
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
            resp = await self.request("initialize", {"protocolVersion": eras.LEGACY, "capabilities": self.caps,
                                                     "clientInfo": settings.bridge_info()}, settings.connect_timeout * 3)
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
                await self.transport.send(jsonrpc.notification("notifications/cancelled", {"requestId": rid, "reason": "timeout"}))
            return jsonrpc.error_response(rid, INTERNAL_ERROR, f"Upstream did not answer {method} in time")
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
        for _page in range(100):
            resp = await self.request("tools/list", {"cursor": cursor} if cursor else {})
            result = resp.get("result") if isinstance(resp.get("result"), dict) else {}
            for tool in result.get("tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    out[tool["name"]] = tx.tool_task_support(tool)
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str):
                break
        return out

    async def _deliver(self, msg: Message, related: RequestId | None) -> None:
        if jsonrpc.is_response(msg):
            fut = self._pending.get(msg.get("id")) if isinstance(msg.get("id"), int) else None
            if fut is not None and not fut.done():
                fut.set_result(msg)
            return
        method = msg.get("method")
        if jsonrpc.is_request(msg):
            if method == "ping":
                await self.transport.send(jsonrpc.result_response(msg["id"], {}))
            elif method in eras.INPUT_REQUEST_METHODS:
                await self.owner.on_input(self, msg)
            else:
                await self.transport.send(jsonrpc.error_response(msg["id"], METHOD_NOT_FOUND, f"Method not found: {method}"))
            return
        if method == "notifications/tasks/status":
            self.owner.on_status(self, msg.get("params"))
        elif method == "notifications/tools/list_changed":
            self.tools = None

    async def _on_lost(self, why: str) -> None:
        if self.state in ("lost", "closed"):
            return
        self.state = "lost"
        # This session is over: stop its transport (a stdio supervisor would respawn an orphan child);
        # the next use opens a new channel.
        self._closing = asyncio.get_running_loop().create_task(self.transport.close())
        for rid, fut in list(self._pending.items()):
            if not fut.done():
                fut.set_result(jsonrpc.error_response(rid, INTERNAL_ERROR, f"Upstream failed: {why}", {"lost": True}))
        self.owner.on_channel_lost(self, why)

    async def close(self) -> None:
        self.state = "closed"
        with contextlib.suppress(Exception):
            await self.transport.close()

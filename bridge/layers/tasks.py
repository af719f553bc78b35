"""Direction A tasks shell: a 2026-07-28 client's ``io.modelcontextprotocol/tasks`` traffic served by a
2025-11-25 tasks server, as an ``Upstream`` wrapped around the legacy upstream.

``TasksUpstream`` intercepts task-capable ``tools/call``, ``tasks/get``/``tasks/update``/``tasks/cancel``,
``server/discover`` (to advertise the extension) and ``subscriptions/listen`` with ``taskIds``; everything
else goes to the wrapped upstream unchanged. Every protocol decision is a function of
``mcp_eras.bridge.translate.tasks`` / ``mcp_eras.bridge.translate.legacy_server.tasks``.

2025 tasks are bound to the session that created them (mcp 1.29 scopes task ids per session), so task
traffic runs on dedicated upstream sessions (``TaskChannel``), one per (principal, input capabilities),
opened through the same transport factory as the wrapped legacy upstream. Per live task, one upstream
``tasks/result`` runs in the background: it carries the task's server->client requests (surfaced as
``inputRequests``) and, at the end, the payload the bridge inlines into ``tasks/get``.

Restart: when a channel's session ends (child exit, HTTP 404), its live tasks become ``failed`` with
-32603 "Upstream task lost: ..." (a 2025 server keeps tasks in memory; the spec lets a receiver forget
tasks, ext tasks.mdx §Error Handling note); finished tasks keep their inlined result until their TTL.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, UpstreamError, served_by
from mcp_eras.bridge.layers.tasks_channel import ChannelKey, ServerView, TaskChannel
from mcp_eras.bridge.layers.tasks_legacy_client import LegacyClientTasks
from mcp_eras.bridge.layers.tasks_room import TaskRoom
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate import tasks as tk
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, FrameError, Message
from mcp_eras.bridge.translate.legacy_server import task_routing as tr
from mcp_eras.bridge.translate.legacy_server import tasks as tx
from mcp_eras.bridge.upstream.legacy_transport import LegacyTransport

log = logging.getLogger("mcp_bridge.tasks")

TransportFactory = Callable[[CallContext], LegacyTransport]

MAX_READY_HINTS = 4096
DEFAULT_TTL_MS = 3_600_000
MAX_RESULT_WAIT_S = 24 * 3600.0


def _now_ms() -> int:
    return int(time.time() * 1000)


class TasksUpstream(Upstream):
    """Wraps an upstream; serves the tasks extension when (and only when) it is a 2025 tasks server."""

    wraps = True

    def __init__(self, inner: Upstream, settings: Settings, transports: Callable[[], TransportFactory | None],
                 store: tk.TaskStore | None = None, now_ms: Callable[[], int] = _now_ms,
                 mint: Callable[[], str] = lambda: secrets.token_urlsafe(24)) -> None:
        self.inner: Upstream = inner
        self.settings = settings
        self.transports = transports
        self.store = store or tk.MemoryTaskStore()
        self.now_ms = now_ms
        self.mint = mint
        self.channels: dict[ChannelKey, TaskChannel] = {}
        self.by_upstream: dict[tuple[ChannelKey, str], str] = {}
        self.pumps: dict[str, asyncio.Task[None]] = {}
        self.watchers: dict[str, set[asyncio.Queue[str]]] = {}
        self.channel_lock = asyncio.Lock()
        self._ready_hints: dict[str | None, str] = {}
        """Caller (principal) -> the id of the ready session ``_ready_caps`` found for it last (checked again on use)."""
        self._caps_seen: dict[str, Any] | None = None
        self._caps_plain = False
        """The server capabilities ``_plain_calls`` looked at last, and whether they offer no tasks (held: the same
        dict is the same verdict)."""
        self._started = False
        self._served: Upstream | None = None
        """The real upstream under this layer, once known (it never changes then: ``_real``)."""
        self._itself: bool | None = None
        """Whether it serves the extension itself (``_serves_itself``), once known."""
        self.legacy_clients = LegacyClientTasks(self, self._modern)
        self.room = TaskRoom(self)
        self.listing: Callable[[str | None], Awaitable[list[tk.TaskRecord]]] | None = None
        """Scaled out: one principal's records on every instance (``tasks/list``); else this instance's own."""
        self.remote: Any = None
        """Scaled out (``mcp_eras.bridge.scaleout.tasks.ClusterTasks``): routes a task request to the instance
        holding the task, or takes its shared record over when that instance is gone."""

    @property  # type: ignore[override]
    def era(self) -> eras.Era:  # type: ignore[override]
        return self.inner.era

    # --- Upstream interface ------------------------------------------------------------------------

    async def start(self) -> None:
        await self.inner.start()
        self._started = True

    async def discover(self, ctx: CallContext) -> Message:
        result = await self.inner.discover(ctx)
        channel = await self._view(ctx, {})
        return tr.discovered(result, channel.server_caps if channel is not None else None, ctx.client_era)

    def call(self, request: Message, ctx: CallContext, emit: Emit) -> Awaitable[Message]:  # type: ignore[override]
        """The chosen path's coroutine itself: another instance's or the 2025 clients' task layer when they may take
        the request; the inner upstream's own for a method the extension does not touch, and for a ``tools/call``
        when this caller's server is known to have no tasks (or serves them itself: a 2026 upstream); else ``_modern``."""
        method = request.get("method")
        if (self.remote is not None and str(method).startswith("tasks/")) or self.legacy_clients.wants(request, ctx):
            return self._routed(request, ctx, emit)
        if not tr.touches_extension(method):
            return self.inner.call(request, ctx, emit)  # as ``_modern`` would, one coroutine less
        if method == "tools/call" and self._plain_calls(ctx):
            call = self.inner.call(request, ctx, emit)
            return call if self.inner.answers_refusals else self._answered(call, request.get("id"))
        return self._modern(request, ctx, emit)

    def _plain_calls(self, ctx: CallContext) -> bool:
        """Whether ``_call`` would hand this caller's ``tools/call`` straight to the inner upstream, decided without
        awaiting anything: a started 2026 upstream (it serves the extension itself), or a 2025 server whose ready
        session of this caller declared no tasks while no task channel of the caller is open. Unsure: False."""
        if self._itself or (self._itself is None and self._serves_itself()):
            return self._started
        if self.channels and any(principal == ctx.principal and channel.state == "ready"
                                 for (principal, _caps), channel in self.channels.items()):
            return False
        known = self._ready_caps(ctx)
        if known is None:
            return False
        if known is not self._caps_seen:  # (a session's capabilities are read once per initialize: one dict each)
            self._caps_seen, self._caps_plain = known, not tx.upstream_supports_tasks(known)
        return self._caps_plain

    @staticmethod
    async def _answered(call: Awaitable[Message], rid: Any) -> Message:
        """``call``'s answer, a refusal (``FrameError``) or an unreachable upstream as the error response to ``rid``."""
        try:
            return await call
        except FrameError as exc:
            exc.id = rid
            return exc.to_response()
        except UpstreamError as exc:
            return jsonrpc.error_response(rid, INTERNAL_ERROR, f"Upstream error: {exc}")

    async def _routed(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        if self.remote is not None and str(request.get("method")).startswith("tasks/"):
            routed = await self.remote.route(request, ctx, emit)
            if routed is not None:
                return routed
        if self.legacy_clients.wants(request, ctx):
            return await self._answered(self.legacy_clients.handle(request, ctx, emit), request.get("id"))
        return await self._modern(request, ctx, emit)

    async def _modern(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        """A 2026 request (a 2026 client's, or direction B's on a 2025 client's behalf)."""
        if not tr.touches_extension(request.get("method")):
            return await self.inner.call(request, ctx, emit)
        return await self._answered(self._call(request, ctx, emit), request.get("id"))

    async def aclose(self) -> None:
        await self.room.aclose()
        for pump in list(self.pumps.values()):
            pump.cancel()
        for channel in list(self.channels.values()):
            await channel.close()
        self.channels.clear()
        await self.inner.aclose()

    def status(self) -> dict[str, Any]:
        return {**self.inner.status(), "tasks": len(self.store), "taskPumps": len(self.pumps), "taskLimits": self.room.status(),
                "taskChannels": [{"state": c.state, **c.transport.describe()} for c in list(self.channels.values())[:8]]}

    # --- dispatch ------------------------------------------------------------------------------------

    async def _call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        method = request["method"]
        caps = None  # tr.input_capabilities(request), worked out only where a task session may be opened
        if method == "server/discover":
            resp = await self.inner.call(request, ctx, emit)
            channel = await self._view(ctx, caps, request)
            if channel is not None and isinstance(resp.get("result"), dict):
                resp = {**resp, "result": tx.advertise(resp["result"], channel.server_caps)}
            return resp
        if method == "subscriptions/listen" and not tr.listens_for_tasks(request):
            return await self.inner.call(request, ctx, emit)
        channel = await self._view(ctx, caps, request, for_call=method == "tools/call")
        if channel is None:
            return await self.inner.call(request, ctx, emit)  # a 2026 upstream serves the extension itself
        supported = tx.upstream_supports_tasks(channel.server_caps)
        route = tr.dispatch(request, supported, isinstance(channel, TaskChannel))
        if route == "not_found":
            return tr.method_not_found(request)
        if route == "task":
            return await self._task_method(request, ctx)
        if route in ("listen", "listen_plain"):
            task_ids, rest = tx.split_listen(request.get("params"))
            if route == "listen_plain":
                return await self.inner.call({**request, "params": rest}, ctx, emit)
            return await self._listen(request, rest, task_ids, ctx, emit)
        if route == "inner":
            return await self.inner.call(request, ctx, emit)
        assert isinstance(channel, TaskChannel)
        name = (request.get("params") or {}).get("name")
        decision = tx.creation(request, await channel.tool_support(str(name)), supported)
        if decision == "missing":
            raise tk.missing_extension()
        if decision == "direct":
            return await self.inner.call(request, ctx, emit)
        task_channel = await self._channel_if_legacy(ctx, tr.input_capabilities(request))
        assert task_channel is not None
        return await self._create(task_channel, request, ctx)

    async def _view(self, ctx: CallContext, caps: dict[str, Any] | None, request: Message | None = None, *,
                    for_call: bool = False) -> TaskChannel | ServerView | None:
        """A ready session of this caller to read the server's capabilities and tools from (they do not
        depend on the client's capabilities): any existing one, so discovery costs no extra session. Only a
        ``tools/call`` on a server with tasks (``for_call``) needs a task session: otherwise the caller's own pool
        session tells (no second child; a task request is served on its task's own session, a finished task from
        its record). A resolved 2026 upstream has no view here (it serves the extension itself)."""
        modern = self._serves_itself()
        if self._started and modern:
            return None
        if not modern:
            for (principal, _caps), channel in self.channels.items():
                if principal == ctx.principal and channel.state == "ready" and self.transports() is not None:
                    return channel
        known = await self._pool_caps(ctx, request, modern)
        if known is not None and (not for_call or not tx.upstream_supports_tasks(known)):
            return ServerView(known)
        if caps is None:
            caps = tr.input_capabilities(request) if request is not None else {}
        return await self._channel_if_legacy(ctx, caps)

    async def _pool_caps(self, ctx: CallContext, request: Message | None, modern: bool) -> dict[str, Any] | None:
        """The 2025 server's capabilities from the inner pool's session of this caller, opened for the identity its
        calls carry (on a cold stdio upstream: the probed child); None for a 2026 upstream (``modern``: resolved, and
        not a 2025 server)."""
        if modern:
            return None
        # A ready session of this caller already: discover would return at once (its result unused), so skip it.
        known = self._ready_caps(ctx)
        if known is not None:
            return known
        meta = eras.request_meta(request) if request is not None else None
        await self.inner.discover(dataclasses.replace(ctx, identity=meta) if meta else ctx)
        return self._ready_caps(ctx)

    def _ready_caps(self, ctx: CallContext) -> dict[str, Any] | None:
        """The server capabilities a ready session of this caller read (its own dict: callers only read it). The
        session found last for each caller is tried first: a call does not scan every caller's sessions."""
        live = (self._served or self._real() or self.inner).live  # (no real upstream yet: a layer's, empty)
        hint = live.get(self._ready_hints.get(ctx.principal))  # type: ignore[arg-type]
        if hint is not None and hint.state == "ready" and hint.rec.principal == ctx.principal:
            return hint.server_caps
        for session in live.values():
            if session.state == "ready" and session.rec.principal == ctx.principal:
                if len(self._ready_hints) >= MAX_READY_HINTS:
                    self._ready_hints.clear()
                self._ready_hints[ctx.principal] = session.rec.sid
                return session.server_caps
        return None

    def _real(self) -> Upstream | None:
        """The real upstream under this layer; None while an auto-probing one has not chosen. Once chosen it stays (an
        auto-probing upstream chooses once; a fleet server's new generation gets a tasks layer of its own)."""
        self._served = served_by(self.inner)
        return self._served

    def _serves_itself(self) -> bool:
        """Whether the upstream is known to be one with no 2025 transports (a 2026 server: it serves the extension
        itself). False while an auto-probing upstream has not chosen. Kept once known (it runs on every call)."""
        itself = self._itself
        if itself is None:
            if (self._served or self._real()) is None:
                return False
            itself = self._itself = self.transports() is None
        return itself

    async def _channel_if_legacy(self, ctx: CallContext, caps: dict[str, Any]) -> TaskChannel | None:
        if not self._started:
            await self.start()
        factory = self.transports()
        if factory is None:
            return None
        key: ChannelKey = tr.session_key(ctx.principal, caps)
        channel = self.channels.get(key)
        if channel is None or tr.session_over(channel.state):
            async with self.channel_lock:
                channel = self.channels.get(key)
                if channel is None or tr.session_over(channel.state):
                    if channel is None:
                        await self.room.make_room(ctx.principal)
                    else:
                        await channel.close()
                    channel = TaskChannel(self, factory(ctx), key, caps)
                    self.channels[key] = channel
        channel.last_used_ms = self.now_ms()
        await channel.ensure_ready()
        return channel

    # --- creation and the per-task result pump ------------------------------------------------------------

    async def _create(self, channel: TaskChannel, request: Message, ctx: CallContext) -> Message:
        with self.room.admitted(ctx.principal):
            wire = tx.create_request(request, 0, DEFAULT_TTL_MS)
            resp = await channel.request("tools/call", wire["params"])
            if "error" in resp:
                return {"jsonrpc": "2.0", "id": request["id"], "error": resp["error"]}
            record = tx.new_record(resp.get("result"), bridge_id=self.mint(), principal=ctx.principal,
                                   now_ms=self.now_ms(), request=request)
            record.session = channel.key[1]
            self.store.put(record)
        assert record.upstream_id is not None
        self.by_upstream[(channel.key, record.upstream_id)] = record.bridge_id
        self.pumps[record.bridge_id] = asyncio.create_task(self._pump(channel, record.bridge_id, record.upstream_id))
        return jsonrpc.result_response(request["id"], tx.create_result(record))

    async def _pump(self, channel: TaskChannel, bridge_id: str, upstream_id: str) -> None:
        """Hold one upstream ``tasks/result`` until the task ends (re-issued if the transport drops it)."""
        deadline = time.monotonic() + MAX_RESULT_WAIT_S
        try:
            while time.monotonic() < deadline and channel.state == "ready":
                resp = await channel.request("tasks/result", {"taskId": upstream_id}, max(1.0, deadline - time.monotonic()))
                if tr.stream_broke(resp, channel.state == "ready"):
                    await asyncio.sleep(0.5)
                    continue
                info = await channel.request("tasks/get", {"taskId": upstream_id}) if tr.needs_status(resp) else {}
                record = self.store.get(bridge_id)
                if record is None:
                    return
                tr.finish(record, resp, info.get("result"), channel.state == "ready", self.now_ms())
                self._save(record)
                return
            self._lose(bridge_id, tr.pump_ended(channel.state == "ready"))
        except (UpstreamError, OSError) as exc:
            self._lose(bridge_id, str(exc))
        except Exception as exc:  # noqa: BLE001 - a pump must never leave its task hanging
            log.exception("task result pump failed")
            self._lose(bridge_id, f"bridge error: {exc.__class__.__name__}")
        finally:
            self.pumps.pop(bridge_id, None)

    def _lose(self, bridge_id: str, why: str) -> None:
        record = self.store.get(bridge_id)
        if record is not None and not record.terminal:
            tk.lost(record, why, self.now_ms())
            self._save(record)

    def _save(self, record: tk.TaskRecord) -> None:
        self.store.put(record)
        for queue in self.watchers.get(record.bridge_id, ()):
            queue.put_nowait(record.bridge_id)

    # --- upstream events -----------------------------------------------------------------------------

    def _record_for(self, channel: TaskChannel, upstream_id: str | None) -> tk.TaskRecord | None:
        bridge_id = self.by_upstream.get((channel.key, upstream_id)) if upstream_id else None
        return self.store.get(bridge_id) if bridge_id else None

    async def on_input(self, channel: TaskChannel, msg: Message) -> None:
        related = tk.related_task_of(msg)
        record = self._record_for(channel, related) if related is not None else tr.sole_live_task(self._live_tasks(channel))
        refusals = tr.take_input(record, msg, self.now_ms())
        for reply in refusals:
            await channel.send(reply)
        if not refusals:
            assert record is not None
            self._save(record)

    def _live_tasks(self, channel: TaskChannel) -> list[tk.TaskRecord]:
        """This session's unfinished tasks (``tr.sole_live_task`` picks the one a server request belongs to; e.g.
        server-everything's research task omits the related-task ``_meta``)."""
        return [r for (key, _up), bid in self.by_upstream.items() if key == channel.key
                for r in [self.store.get(bid)] if r is not None and not r.terminal]

    def on_status(self, channel: TaskChannel, params: Any) -> None:
        record = self._record_for(channel, params.get("taskId") if isinstance(params, dict) else None)
        if record is not None and tx.merge(record, params, self.now_ms()):
            self._save(record)

    def on_channel_lost(self, channel: TaskChannel, why: str) -> None:
        for (key, _up), bridge_id in list(self.by_upstream.items()):
            if key != channel.key:
                continue
            record = self.store.get(bridge_id)
            if record is not None and not record.terminal:
                tk.lost(record, why, self.now_ms())
                self._save(record)

    # --- tasks/get, tasks/update, tasks/cancel ------------------------------------------------------------

    async def _task_method(self, request: Message, ctx: CallContext) -> Message:
        method = request["method"]
        params = request.get("params")
        task_id = tk.task_id_param(params)
        record = self._owned(ctx, task_id)
        channel = self.channels.get((record.principal, record.session or ""))
        if method == "tasks/get":
            if not record.terminal and channel is not None and channel.state == "ready":
                try:
                    resp = await channel.request("tasks/get", {"taskId": record.upstream_id})
                    upstream = resp.get("result")
                    payload = None
                    if tx.upstream_terminal(upstream):
                        # Terminal upstream: fetch the payload now (tasks/result answers at once for a
                        # terminal task) rather than only through the pump, whose blocking tasks/result a
                        # server may fail to wake (seen with mcp 1.29 under load).
                        payload = await channel.request("tasks/result", {"taskId": record.upstream_id})
                except UpstreamError:
                    # The session is going away: answer what the bridge knows (its loss marks the task).
                    return jsonrpc.result_response(request["id"], tx.get_result(self._owned(ctx, task_id)))
                record = self._owned(ctx, task_id)
                changed, settled = tr.polled(record, upstream, payload, self.now_ms())
                if settled:
                    pump = self.pumps.pop(record.bridge_id, None)
                    if pump is not None:
                        pump.cancel()
                if changed:
                    self._save(record)
            return jsonrpc.result_response(request["id"], tx.get_result(record))
        if method == "tasks/update":
            replies = tx.answers(record, params.get("inputResponses"), self.now_ms())
            self._save(record)
            for reply in replies:
                if channel is not None and channel.state == "ready":
                    await channel.send(reply)
            return jsonrpc.result_response(request["id"], tx.ack())
        # tasks/cancel: cooperative in 2026 (empty ack); 2025 answers the cancelled Task.
        if not record.terminal and channel is not None and channel.state == "ready":
            try:
                resp = await channel.request("tasks/cancel", {"taskId": record.upstream_id})
            except UpstreamError:
                resp = {}  # cancellation is cooperative (ext §Task Cancellation): the ack stands
            record = self._owned(ctx, task_id)
            replies = tr.cancelled(record, resp.get("result"), self.now_ms())
            if replies is not None:
                self._save(record)
                for reply in replies:
                    await channel.send(reply)
        return jsonrpc.result_response(request["id"], tx.ack())

    def _owned(self, ctx: CallContext, task_id: str) -> tk.TaskRecord:
        record = tk.owned(self.store, ctx.principal, task_id, self.now_ms())
        if record.client_era != eras.MODERN:
            raise tk.not_found(task_id)
        return record

    # --- subscriptions/listen with taskIds ----------------------------------------------------------------

    async def _listen(self, request: Message, rest: Message, task_ids: list[str], ctx: CallContext, emit: Emit) -> Message:
        rid = request["id"]
        accepted, elsewhere = [], False
        for task_id in task_ids:
            try:
                accepted.append(self._owned(ctx, task_id).bridge_id)
            except FrameError:  # scaled out: a task held by another instance, followed through the store
                if self.remote is not None and await self.remote.watchable(task_id, ctx.principal):
                    accepted.append(task_id)
                    elsewhere = True
        queue: asyncio.Queue[str] = asyncio.Queue()
        for task_id in accepted:
            self.watchers.setdefault(task_id, set()).add(queue)
        if elsewhere:
            self.remote.follow()

        acked = asyncio.Event()

        async def forward(note: Message) -> None:
            await emit(tx.acknowledged(note, accepted))
            if note.get("method") == "notifications/subscriptions/acknowledged":
                acked.set()

        async def relay() -> None:
            await acked.wait()  # the acknowledgement is the stream's first event; task events queue until then
            while True:
                task_id = await queue.get()
                record = self.store.get(task_id)
                if record is None and self.remote is not None:
                    record = await self.remote.record(task_id)
                if record is not None:
                    await emit(tx.status_notification(record, rid))

        relayer = asyncio.create_task(relay())
        try:
            return await self.inner.call({**request, "params": rest}, ctx, forward)
        finally:
            relayer.cancel()
            for task_id in accepted:
                group = self.watchers.get(task_id)
                if group is not None:
                    group.discard(queue)
                    if not group:
                        self.watchers.pop(task_id, None)


def legacy_transports(upstream: Upstream) -> Callable[[], TransportFactory | None]:
    """Where the task channels get their transports: the wrapped upstream's legacy transport factory,
    once its era is known (an auto-probing upstream resolves on start); None for a 2026 upstream."""

    def resolve() -> TransportFactory | None:
        real = served_by(upstream)
        if real is None or real.era != eras.LEGACY:
            return None
        return real.transport_factory

    return resolve


def with_tasks(upstream: Upstream, settings: Settings) -> Upstream:
    """The upstream the fronts should use: task translation around ``upstream``."""
    return TasksUpstream(upstream, settings, legacy_transports(upstream))

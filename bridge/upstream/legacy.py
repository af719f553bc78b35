"""Direction A shell: a 2025-era server behind the canonical 2026 interface.

Owns a pool of initialized upstream sessions keyed by (principal, client capabilities, client info),
mints upstream ids, routes inbound frames to the calls they belong to, parks calls that the server
interrupts with elicitation/sampling/roots requests (MRTR) and serves ``subscriptions/listen`` from
the sessions' unsolicited notifications. Every mapping decision is a function of
``bridge.translate.legacy_upstream``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from bridge import eras, jsonrpc
from bridge.config import Settings
from bridge.core import CallContext, Emit, Upstream, UpstreamError
from bridge.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY, FrameError, Message, RequestId
from bridge.state import MemoryParkedStore, ParkedStore, StateSealer
from bridge.translate import legacy_upstream as tx
from bridge.upstream.legacy_transport import LegacyTransport, SessionLost

log = logging.getLogger("mcp_bridge.legacy")

TransportFactory = Callable[[CallContext], LegacyTransport]
PoolKey = tuple[str | None, str, str]

COALESCE_SECONDS = 0.05


class UpstreamCall:
    """One upstream request in flight, possibly spanning several client requests (MRTR rounds)."""

    def __init__(self, session: LegacySession, upstream_id: int, method: str, input_capable: bool) -> None:
        self.session = session
        self.upstream_id = upstream_id
        self.method = method
        self.input_capable = input_capable
        self.queue: asyncio.Queue[tuple[str, Message]] = asyncio.Queue()
        self.client_token: str | int | None = None
        self.log_level: str | None = None
        self.last_progress: float | None = None
        self.pending: dict[str, tuple[RequestId, str, dict[str, Any]]] = {}
        self.round = 0
        self.finished = False
        self.params: Any = None

    def bind_client(self, request: Message) -> None:
        """The client request currently riding this upstream call (changes on each MRTR retry)."""
        self.params = request.get("params")
        self.client_token = tx.client_progress_token(request)
        self.log_level = tx.client_log_level(request)
        self.last_progress = None


@dataclass
class Parked:
    call: UpstreamCall
    principal: str | None
    digest: str
    method: str
    round: int
    timer: asyncio.Task[None] | None = None


@dataclass(eq=False)
class Listener:
    listen_id: RequestId
    principal: str | None
    acked: dict[str, Any]
    queue: asyncio.Queue[Message | None] = field(default_factory=asyncio.Queue)


class LegacySession:
    """One initialized 2025 session (one stdio process, or one Mcp-Session-Id)."""

    def __init__(self, owner: LegacyUpstream, transport: LegacyTransport, key: PoolKey,
                 caps: dict[str, Any], client_info: dict[str, Any]) -> None:
        self.owner = owner
        self.transport = transport
        self.key = key
        self.principal = key[0]
        self.caps = caps
        self.client_info = client_info
        self.state = "new"
        self.init_result: Message = {}
        self.server_caps: dict[str, Any] = {}
        self.server_info: dict[str, Any] | None = None
        self.version: str | None = None
        self.calls: dict[int, UpstreamCall] = {}
        self.lease: UpstreamCall | None = None
        self.reserved = False
        """Held by an input-capable call from lease grant until it finishes (its lease)."""
        self.provisional = False
        """Opened by start() (fail fast) rather than for a client; retired when a client session appears."""
        self.sub_counts: dict[str, int] = {}
        self.log_level_set = False
        self.inits = 0
        self._ids = itertools.count(1)
        self._lock = asyncio.Lock()
        transport.bind(self._deliver, self._on_lost)

    # --- lifecycle ---------------------------------------------------------------------------------

    async def ensure_ready(self) -> None:
        if self.state == "ready":
            return
        async with self._lock:
            if self.state == "ready":
                return
            was_ready_before = self.inits > 0
            await self._initialize()
            if was_ready_before:
                await self._resync()

    async def _initialize(self) -> None:
        settings = self.owner.settings
        await self.transport.open()
        self.log_level_set = False
        result = await self.roundtrip("initialize", tx.initialize_params(self.caps, self.client_info), settings.connect_timeout * 3)
        version = result.get("protocolVersion")
        if version not in eras.LEGACY_VERSIONS:
            raise UpstreamError(f"upstream negotiated unsupported protocol version {version!r}")
        self.version = version
        self.init_result = result
        self.server_caps = result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {}
        self.server_info = result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else None
        self.transport.initialized(version)
        await self.transport.send(jsonrpc.notification("notifications/initialized"))
        self.state = "ready"
        self.inits += 1
        log.info("upstream %s: session initialized (%s, %s)", self.owner.name, version, self.transport.kind)

    async def _resync(self) -> None:
        """After a re-initialize: restore resource subscriptions and tell listeners events may be lost."""
        for uri, count in list(self.sub_counts.items()):
            if count > 0:
                with contextlib.suppress(UpstreamError):
                    await self.roundtrip("resources/subscribe", {"uri": uri})
        for method in tx.LIST_CHANGED:
            self.owner.fanout(self, jsonrpc.notification(method, {}))
        for uri, count in self.sub_counts.items():
            if count > 0:
                self.owner.fanout(self, jsonrpc.notification("notifications/resources/updated", {"uri": uri}))

    async def _on_lost(self, why: str) -> None:
        if self.state == "lost":
            return
        self.state = "lost"
        log.warning("upstream %s: session lost: %s", self.owner.name, why)
        self.owner.restarts += 1
        for call in list(self.calls.values()):
            call.queue.put_nowait(("done", jsonrpc.error_response(call.upstream_id, INTERNAL_ERROR, f"Upstream failed: {why}")))
        self.calls.clear()
        if self.reserved:
            self.lease = None
            self.reserved = False
            self.owner.lease_released(self.key)

    async def close(self) -> None:
        self.state = "closed"
        await self.transport.close()

    # --- requests ------------------------------------------------------------------------------------

    def open_call(self, method: str, input_capable: bool = False) -> UpstreamCall:
        call = UpstreamCall(self, next(self._ids), method, input_capable)
        self.calls[call.upstream_id] = call
        return call

    def close_call(self, call: UpstreamCall, abandon: bool = False) -> None:
        """Forget ``call``. ``abandon`` also drops its response stream (only for calls given up on:
        a stream that already carried its response is left to finish so its connection is reused)."""
        call.finished = True
        self.calls.pop(call.upstream_id, None)
        if abandon:
            self.transport.abandon(call.upstream_id)
        if self.lease is call:
            self.release_lease()

    def release_lease(self) -> None:
        self.lease = None
        if self.reserved:
            self.reserved = False
            self.owner.lease_released(self.key)

    async def send(self, msg: Message) -> None:
        if self.state not in ("ready", "new") and msg.get("method") != "initialize":
            raise SessionLost("upstream session lost")
        await self.transport.send(msg)

    async def roundtrip(self, method: str, params: Message | None, timeout: float | None = None) -> Message:
        """A request the bridge itself makes (initialize, setLevel, subscribe). Returns the result."""
        call = self.open_call(method)
        try:
            await self.transport.send(jsonrpc.request(call.upstream_id, method, params))
            with anyio.fail_after(timeout or self.owner.settings.request_timeout):
                while True:
                    kind, msg = await call.queue.get()
                    if kind == "done":
                        break
                    if kind == "input":
                        await self.refuse(msg)
        except TimeoutError:
            raise UpstreamError(f"upstream did not answer {method} in time") from None
        finally:
            self.close_call(call)
        if "error" in msg:
            err = msg["error"] if isinstance(msg["error"], dict) else {}
            raise UpstreamError(f"upstream {method} failed: {err.get('message', err)}")
        return msg.get("result") if isinstance(msg.get("result"), dict) else {}

    async def cancel(self, call: UpstreamCall, reason: str) -> None:
        """Tell the upstream the bridge gave up on ``call`` (2025: an explicit notification)."""
        if call.finished:
            self.close_call(call)
            return
        for sid, method, _entry in call.pending.values():
            await self.answer_refusal(sid, method)
        call.pending.clear()
        self.close_call(call, abandon=True)
        with contextlib.suppress(UpstreamError):
            await self.transport.send(
                jsonrpc.notification("notifications/cancelled", {"requestId": call.upstream_id, "reason": reason})
            )

    async def answer_refusal(self, server_id: RequestId, method: str) -> None:
        result, error = tx.input_refusal(method)
        msg = jsonrpc.result_response(server_id, result) if result is not None else jsonrpc.error_response(
            server_id, error["code"], error["message"]  # type: ignore[index]
        )
        with contextlib.suppress(UpstreamError):
            await self.transport.send(msg)

    async def refuse(self, request: Message) -> None:
        await self.answer_refusal(request["id"], request["method"])

    async def ensure_log_level(self) -> None:
        if self.log_level_set or not isinstance(self.server_caps.get("logging"), dict):
            return
        self.log_level_set = True
        try:
            await self.roundtrip("logging/setLevel", {"level": "debug"})
        except UpstreamError as exc:
            log.info("upstream %s: logging/setLevel failed: %s", self.owner.name, exc)

    async def subscribe(self, uri: str) -> bool:
        if self.sub_counts.get(uri, 0) == 0:
            try:
                await self.roundtrip("resources/subscribe", {"uri": uri})
            except UpstreamError as exc:
                log.info("upstream %s: resources/subscribe %s failed: %s", self.owner.name, uri, exc)
                return False
        self.sub_counts[uri] = self.sub_counts.get(uri, 0) + 1
        return True

    async def unsubscribe(self, uri: str) -> None:
        count = self.sub_counts.get(uri, 0) - 1
        if count > 0:
            self.sub_counts[uri] = count
            return
        self.sub_counts.pop(uri, None)
        if self.state == "ready":
            with contextlib.suppress(UpstreamError):
                await self.roundtrip("resources/unsubscribe", {"uri": uri}, 10)

    # --- inbound -------------------------------------------------------------------------------------

    async def _deliver(self, msg: Message, related: RequestId | None) -> None:
        if jsonrpc.is_response(msg):
            call = self.calls.pop(msg.get("id"), None) if isinstance(msg.get("id"), int) else None
            if call is not None:
                call.queue.put_nowait(("done", msg))
            return
        method = msg.get("method")
        if jsonrpc.is_request(msg):
            if method == "ping":
                await self.transport.send(jsonrpc.result_response(msg["id"], {}))
                return
            if method not in eras.INPUT_REQUEST_METHODS:
                await self.transport.send(jsonrpc.error_response(msg["id"], -32601, f"Method not found: {method}"))
                return
            call = self._attribute(related, input_request=True)
            if call is None:
                log.info("upstream %s: unattributable %s answered locally", self.owner.name, method)
                await self.refuse(msg)
                return
            call.queue.put_nowait(("input", msg))
            return
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if method == "notifications/progress":
            token = params.get("progressToken")
            call = self.calls.get(token) if isinstance(token, int) else None
            if call is not None:
                call.queue.put_nowait(("note", msg))
        elif method == "notifications/message":
            call = self._attribute(related, log_message=True)
            if call is not None:
                call.queue.put_nowait(("note", msg))
        elif method in tx.LIST_CHANGED or method == "notifications/resources/updated":
            self.owner.fanout(self, msg)
        elif method == "notifications/cancelled":
            rid = params.get("requestId")
            for call in self.calls.values():
                for key, (sid, _m, _e) in list(call.pending.items()):
                    if sid == rid:
                        call.pending.pop(key)
            for call in self.calls.values():
                call.queue.put_nowait(("withdraw", msg))
        # notifications/elicitation/complete and anything unknown: consumed.

    def _attribute(self, related: RequestId | None, *, input_request: bool = False, log_message: bool = False) -> UpstreamCall | None:
        """Which in-flight call an inbound server request or log message belongs to, if any can be named."""
        if isinstance(related, int) and related in self.calls:
            return self.calls[related]
        if input_request:
            # No wire attribution (stdio, GET stream): unambiguous only through the session's input lease.
            return self.lease if self.lease is not None and not self.lease.finished else None
        if log_message:
            opted = [c for c in self.calls.values() if c.log_level is not None]
            return opted[0] if len(opted) == 1 else None
        return None


class LegacyUpstream(Upstream):
    era = eras.LEGACY

    def __init__(self, transport_factory: TransportFactory, settings: Settings, name: str = "upstream",
                 parked_store: ParkedStore[Parked] | None = None, per_key_sessions: int = 8) -> None:
        self.transport_factory = transport_factory
        self.settings = settings
        self.name = name
        self.sessions: dict[PoolKey, list[LegacySession]] = {}
        self.parked: ParkedStore[Parked] = parked_store or MemoryParkedStore()
        self.sealer = StateSealer(settings.state_key, settings.instance_id, settings.state_ttl)
        self.listeners: set[Listener] = set()
        self.per_key_sessions = per_key_sessions
        self.restarts = 0
        self._lease_waiters: dict[PoolKey, asyncio.Condition] = {}
        self._pool_lock = asyncio.Lock()
        self._closed = False

    # --- Upstream interface ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Fail fast: initialize one session now. It is provisional: the first client session of
        another pool key retires it while idle (a stdio upstream would otherwise keep two children)."""
        session = await self._session(CallContext(), {}, None)
        session.provisional = True
        await session.ensure_ready()

    async def discover(self, ctx: CallContext) -> Message:
        # Any ready session of this caller has the upstream's InitializeResult; prefer it to a new one.
        for group in self.sessions.values():
            for session in group:
                if session.principal == ctx.principal and session.state == "ready":
                    return self._discover_result(session)
        session = await self._session(ctx, {}, None)
        await session.ensure_ready()
        return self._discover_result(session)

    def _discover_result(self, session: LegacySession) -> Message:
        return tx.discover_result(
            session.init_result,
            supported_versions=list(eras.MODERN_VERSIONS),
            ttl_ms=self.settings.discover_ttl_ms,
            cache_scope=self.settings.cache_scope,
        )

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        rid = request.get("id")
        try:
            return await self._call(request, ctx, emit)
        except FrameError as exc:
            exc.id = rid
            return exc.to_response()
        except UpstreamError as exc:
            return jsonrpc.error_response(rid, INTERNAL_ERROR, f"Upstream error: {exc}")

    async def _call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        response = await self._call_once(request, ctx, emit)
        if _session_expired(response):
            # 2025 HTTP: 404 means the server forgot the session and did not process the request.
            # Re-initialize (the session is marked lost) and send it once more.
            log.info("upstream %s: session expired; re-initializing and retrying %s", self.name, request["method"])
            response = await self._call_once(request, ctx, emit)
        return response

    async def _call_once(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        method = request["method"]
        params = request.get("params") if isinstance(request.get("params"), dict) else {}
        caps = tx.client_capabilities(request)
        info = tx.client_info(request)
        if method == "server/discover":
            session = await self._session(ctx, caps, info)
            await session.ensure_ready()
            return jsonrpc.result_response(request["id"], self._discover_result(session))
        if method == "subscriptions/listen":
            return await self._listen(request, ctx, caps, info, emit)
        if "requestState" in params and method in eras.MRTR_METHODS:
            return await self._resume(request, ctx, emit)
        input_capable = method in eras.MRTR_METHODS and any(k in caps for k in ("elicitation", "sampling", "roots"))
        session = await (self._lease(ctx, caps, info) if input_capable else self._session(ctx, caps, info))
        try:
            await session.ensure_ready()
            call = session.open_call(method, input_capable)
            if input_capable:
                session.lease = call
            call.bind_client(request)
            if call.log_level is not None:
                await session.ensure_log_level()
            token = call.upstream_id if call.client_token is not None else None
            await session.send(tx.to_legacy_request(request, call.upstream_id, token))
        except BaseException:
            if input_capable and session.lease is None:
                session.release_lease()
            raise
        return await self._drive(call, request, ctx, emit)

    async def aclose(self) -> None:
        self._closed = True
        for listener in list(self.listeners):
            listener.queue.put_nowait(None)
        sessions = [s for group in self.sessions.values() for s in group]
        self.sessions.clear()
        for s in sessions:
            with contextlib.suppress(Exception):
                await s.close()

    def status(self) -> dict[str, Any]:
        sessions = [s for group in self.sessions.values() for s in group]
        return {
            "era": self.era,
            "sessions": len(sessions),
            "ready": sum(1 for s in sessions if s.state == "ready"),
            "restarts": self.restarts,
            "parked": len(self.parked),
            "listeners": len(self.listeners),
            "transports": [s.transport.describe() for s in sessions[:8]],
        }

    # --- pool ------------------------------------------------------------------------------------------

    def _key(self, ctx: CallContext, caps: dict[str, Any], info: dict[str, Any] | None) -> PoolKey:
        info_key = f"{info.get('name')}/{info.get('version')}" if info else ""
        return (ctx.principal, tx.capabilities_key(caps), info_key)

    def _new_session(self, ctx: CallContext, key: PoolKey, caps: dict[str, Any], info: dict[str, Any] | None) -> LegacySession:
        transport = self.transport_factory(ctx)
        client_info = {"name": str(info.get("name")), "version": str(info.get("version", "0"))} if info else self.settings.bridge_info()
        session = LegacySession(self, transport, key, caps, client_info)
        self._retire_provisional(key)
        self.sessions.setdefault(key, []).append(session)
        return session

    def _retire_provisional(self, key: PoolKey) -> None:
        for other_key, group in list(self.sessions.items()):
            if other_key == key:
                continue
            for s in [s for s in group if s.provisional and not s.calls and not s.reserved and not s.sub_counts]:
                group.remove(s)
                asyncio.get_running_loop().create_task(s.close())
            if not group:
                del self.sessions[other_key]

    async def _session(self, ctx: CallContext, caps: dict[str, Any], info: dict[str, Any] | None) -> LegacySession:
        if self._closed:
            raise UpstreamError("bridge is shutting down")
        key = self._key(ctx, caps, info)
        group = self.sessions.get(key)
        if group:
            return group[0]
        async with self._pool_lock:
            group = self.sessions.get(key)
            if group:
                return group[0]
            self._evict_if_full()
            return self._new_session(ctx, key, caps, info)

    def _evict_if_full(self) -> None:
        total = sum(len(g) for g in self.sessions.values())
        if total < self.settings.pool_max_sessions:
            return
        for key, group in list(self.sessions.items()):
            idle = [s for s in group if not s.calls and not s.reserved and not s.sub_counts]
            for s in idle:
                group.remove(s)
                asyncio.get_running_loop().create_task(s.close())
                return
            if not group:
                del self.sessions[key]

    async def _lease(self, ctx: CallContext, caps: dict[str, Any], info: dict[str, Any] | None) -> LegacySession:
        """A session whose input lease is free: only one input-capable call per session, so every
        server->client request on it is attributable even when the wire says nothing."""
        key = self._key(ctx, caps, info)
        cond = self._lease_waiters.setdefault(key, asyncio.Condition())
        async with cond:
            while True:
                group = self.sessions.get(key, [])
                for s in group:
                    if not s.reserved and s.state != "closed":
                        s.reserved = True
                        return s
                if len(group) < self.per_key_sessions:
                    s = self._new_session(ctx, key, caps, info)
                    s.reserved = True
                    return s
                await cond.wait()

    def lease_released(self, key: PoolKey) -> None:
        cond = self._lease_waiters.get(key)
        if cond is not None:
            async def notify() -> None:
                async with cond:
                    cond.notify_all()

            asyncio.get_running_loop().create_task(notify())

    # --- driving one call ------------------------------------------------------------------------------

    async def _drive(self, call: UpstreamCall, request: Message, ctx: CallContext, emit: Emit) -> Message:
        rid = request["id"]
        session = call.session
        handed_off = False
        try:
            with anyio.fail_after(self.settings.request_timeout):
                while True:
                    kind, msg = await call.queue.get()
                    if kind == "note":
                        await self._emit_note(call, msg, emit)
                    elif kind == "done":
                        handed_off = True
                        session.close_call(call)
                        return self._finish(call, rid, msg)
                    elif kind == "input":
                        batch = await self._coalesce(call, msg, emit)
                        missing = self._missing_capability(request, batch)
                        if missing is not None:
                            for req in batch:
                                await session.refuse(req)
                            return jsonrpc.error_response(
                                rid, MISSING_CLIENT_CAPABILITY,
                                f"Server requires the {next(iter(missing))} capability for this request",
                                {"requiredCapabilities": missing},
                            )
                        for req in batch:
                            entry, _eid = tx.input_request(req["method"], req.get("params"))
                            call.pending[f"s{req['id']}"] = (req["id"], req["method"], entry)
                        handed_off = True
                        return self._park(call, request, ctx)
        except TimeoutError:
            return jsonrpc.error_response(rid, INTERNAL_ERROR, "Upstream did not answer in time")
        finally:
            if not handed_off:
                with anyio.CancelScope(shield=True):
                    await session.cancel(call, "client cancelled or timed out")

    async def _coalesce(self, call: UpstreamCall, first: Message, emit: Emit) -> list[Message]:
        """Upstream requests that arrive together become one input_required round."""
        batch = [first]
        deadline = time.monotonic() + COALESCE_SECONDS
        while (left := deadline - time.monotonic()) > 0:
            try:
                kind, msg = await asyncio.wait_for(call.queue.get(), left)
            except TimeoutError:
                break
            if kind == "input":
                batch.append(msg)
                deadline = time.monotonic() + COALESCE_SECONDS
            elif kind == "note":
                await self._emit_note(call, msg, emit)
            else:
                call.queue.put_nowait((kind, msg))
                break
        return batch

    def _missing_capability(self, request: Message, batch: list[Message]) -> dict[str, Any] | None:
        declared = tx.client_capabilities(request)
        for req in batch:
            need = tx.required_capability(req["method"], req.get("params"))
            if need is not None and not tx.has_capability(declared, need):
                return need
        return None

    async def _emit_note(self, call: UpstreamCall, msg: Message, emit: Emit) -> None:
        method = msg.get("method")
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if method == "notifications/progress":
            if call.client_token is None:
                return
            progress = params.get("progress")
            if not isinstance(progress, (int, float)) or (call.last_progress is not None and progress <= call.last_progress):
                return
            call.last_progress = progress
            await emit(tx.progress_to_client(msg, call.client_token))
        elif method == "notifications/message":
            if tx.log_passes(params.get("level"), call.log_level):
                await emit(tx.strip_notification_meta(msg))

    def _finish(self, call: UpstreamCall, rid: RequestId, msg: Message) -> Message:
        if "error" in msg:
            return {"jsonrpc": "2.0", "id": rid, "error": tx.to_modern_error(msg["error"], call.method, call.params)}
        session = call.session
        info = session.server_info if self.settings.stamp_server_info else None
        result = tx.to_modern_result(
            call.method, msg.get("result"), server_info=info, ttl_ms=self.settings.ttl_ms,
            cache_scope=self.settings.cache_scope, cacheable=call.round == 0,
        )
        return jsonrpc.result_response(rid, result)

    # --- MRTR: park and resume -----------------------------------------------------------------------

    def _park(self, call: UpstreamCall, request: Message, ctx: CallContext) -> Message:
        call.round += 1
        puc = secrets.token_urlsafe(12)
        digest = tx.request_digest(request)
        parked = Parked(call, ctx.principal, digest, request["method"], call.round)
        parked.timer = asyncio.get_running_loop().create_task(self._expire(puc, self.settings.parked_timeout))
        self.parked.put(puc, parked)
        token = self.sealer.seal(puc=puc, principal=ctx.principal, method=request["method"], digest=digest, round=call.round)
        info = call.session.server_info if self.settings.stamp_server_info else None
        requests = {key: entry for key, (_sid, _m, entry) in call.pending.items()}
        return jsonrpc.result_response(request["id"], tx.input_required_result(requests, token, info))

    async def _expire(self, puc: str, after: float) -> None:
        await asyncio.sleep(after)
        parked = self.parked.take(puc)
        if parked is not None:
            log.info("upstream %s: parked call expired; answering its upstream requests", self.name)
            await parked.call.session.cancel(parked.call, "input not provided in time")

    async def _resume(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        params = request["params"]
        claims = self.sealer.open(
            params.get("requestState"), principal=ctx.principal, method=request["method"], digest=tx.request_digest(request)
        )
        parked = self.parked.take(claims.puc)
        if parked is None or parked.round != claims.round:
            raise FrameError(INVALID_PARAMS, "Invalid requestState: unknown, already used or expired", {"reason": "unknown"})
        if parked.timer is not None:
            parked.timer.cancel()
        call = parked.call
        session = call.session
        if call.finished or session.state != "ready":
            raise FrameError(INVALID_PARAMS, "Invalid requestState: the upstream session was lost", {"reason": "lost"})
        responses = params.get("inputResponses")
        if responses is not None and not isinstance(responses, dict):
            await session.cancel(call, "malformed inputResponses")
            raise FrameError(INVALID_PARAMS, "Invalid params: inputResponses must be an object")
        responses = responses or {}
        call.bind_client(request)
        for key, (sid, method, _entry) in list(call.pending.items()):
            value = responses.get(key)
            if not isinstance(value, dict):
                continue
            call.pending.pop(key)
            try:
                await session.send(jsonrpc.result_response(sid, tx.input_response_to_legacy(method, value)))
            except UpstreamError:
                await session.cancel(call, "upstream lost")
                raise
        if call.pending:
            # Some inputs are still missing: ask for exactly those again.
            return self._park(call, request, ctx)
        return await self._drive(call, request, ctx, emit)

    # --- subscriptions/listen ------------------------------------------------------------------------

    async def _listen(self, request: Message, ctx: CallContext, caps: dict[str, Any], info: dict[str, Any] | None,
                      emit: Emit) -> Message:
        rid = request["id"]
        session = await self._session(ctx, caps, info)
        await session.ensure_ready()
        requested = request["params"].get("notifications")
        subscribed = []
        for uri in tx.requested_resource_uris(requested, session.server_caps):
            if await session.subscribe(uri):
                subscribed.append(uri)
        listener = Listener(rid, ctx.principal, tx.acknowledged_filter(requested, session.server_caps, subscribed))
        self.listeners.add(listener)
        try:
            await emit(tx.ack_notification(rid, listener.acked))
            while True:
                note = await listener.queue.get()
                if note is None:
                    return jsonrpc.result_response(rid, tx.listen_closed_result(rid))
                event = tx.listen_event(note, rid, listener.acked)
                if event is not None:
                    await emit(event)
        finally:
            self.listeners.discard(listener)
            with anyio.CancelScope(shield=True):
                for uri in subscribed:
                    await session.unsubscribe(uri)

    def fanout(self, session: LegacySession, note: Message) -> None:
        for listener in self.listeners:
            if listener.principal == session.principal:
                listener.queue.put_nowait(note)


def _session_expired(response: Message) -> bool:
    err = response.get("error")
    data = err.get("data") if isinstance(err, dict) else None
    return isinstance(data, dict) and data.get("sessionExpired") is True

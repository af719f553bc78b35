"""The 2025-11-25 front: a legacy session (Streamable HTTP or stdio) served from a canonical upstream.

Transport-independent session logic lives in ``LegacySession``; ``LegacyHttpFront`` and
``LegacyStdioSession`` only move frames. Protocol meaning comes from ``bridge.translate.legacy_front``.

Per session the front keeps: the identity from ``initialize`` (caps, clientInfo, version, log level),
the subscribed URIs and ONE upstream ``subscriptions/listen`` (replaced make-before-break when the
URI set changes), outstanding bridge->client requests (MRTR), and, on HTTP, replayable SSE streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from bridge import jsonrpc
from bridge.config import Settings
from bridge.core import CallContext, Upstream, UpstreamError
from bridge.eras import LEGACY, LEGACY_CLIENT_METHODS, LEGACY_VERSIONS, LOG_LEVEL_RANK
from bridge.front.http import call_context as http_call_context
from bridge.front.http import json_message, rpc_error
from bridge.jsonrpc import FrameError, Message, RequestId
from bridge.sse import KEEPALIVE, SSE_HEADERS, sse_event, sse_priming
from bridge.translate import errors
from bridge.translate import legacy_front as lf

log = logging.getLogger("mcp_bridge.front.legacy")

Send = Callable[[Message], Awaitable[None]]

SSE_RETRY_MS = 1000
"""``retry`` advertised on primed POST streams: how soon a 2025 client reconnects after a drop."""
RECENT_IDS = 4096


def _id_key(rid: Any) -> tuple[str, Any]:
    return (type(rid).__name__, rid)


# ==============================================================================================
# Replayable SSE event streams (HTTP)
# ==============================================================================================


class EventStream:
    """An ordered sequence of events with ids ``<key>.<seq>``, replayable within the retention window."""

    def __init__(self, key: str, retention: float) -> None:
        self.key = key
        self.retention = retention
        self.events: deque[tuple[int, float, Message]] = deque()
        self.seq = 0
        self.closed = False
        self.closed_at: float | None = None
        self.consumers = 0
        self.owner: object | None = None
        """Exclusive streams (a session's GET stream): the newest consumer takes over, older ones end."""
        self._changed = asyncio.Event()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def push(self, msg: Message) -> None:
        if self.closed:
            return
        self.seq += 1
        now = time.monotonic()
        self.events.append((self.seq, now, msg))
        while self.events and self.events[0][1] < now - self.retention:
            self.events.popleft()
        self._wake()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.closed_at = time.monotonic()
            self._wake()

    def expired(self, now: float) -> bool:
        return self.closed and self.consumers == 0 and self.closed_at is not None and self.closed_at < now - self.retention

    def take_over(self) -> object:
        token = object()
        self.owner = token
        self._wake()
        return token

    async def iterate(self, after: int, keepalive: float, token: object | None = None
                      ) -> AsyncIterator[tuple[int, Message] | None]:
        """Events with seq > ``after``; ``None`` after ``keepalive`` seconds of silence; ends when closed and drained
        (or, for an exclusive consumer holding ``token``, when a newer consumer took the stream over)."""
        cursor = after
        while True:
            if token is not None and self.owner is not token:
                return
            changed = self._changed
            pending = [(s, m) for (s, _t, m) in self.events if s > cursor]
            for s, m in pending:
                cursor = s
                yield (s, m)
            if pending:
                continue
            if self.closed:
                return
            try:
                await asyncio.wait_for(changed.wait(), keepalive)
            except TimeoutError:
                yield None


# ==============================================================================================
# The upstream listen behind a session's unsolicited notifications (spec-delta 5.3)
# ==============================================================================================


class _ListenRun:
    def __init__(self, listen_id: str, filt: dict[str, Any]) -> None:
        self.id = listen_id
        self.filter = filt
        self.ack: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.task: asyncio.Task[None] | None = None
        self.retired = False


class _Listener:
    """ONE upstream ``subscriptions/listen`` per session; filter changes replace it make-before-break."""

    def __init__(self, session: LegacySession) -> None:
        self.session = session
        self.current: _ListenRun | None = None
        self.acked: dict[str, Any] = {}
        self.lock = asyncio.Lock()
        self.unsupported = False
        self.closed = False
        self.newest_acked: _ListenRun | None = None
        self._ids = itertools.count(1)
        self._backoff = 0.5
        self._relisten: asyncio.Task[None] | None = None

    async def apply(self, filt: dict[str, Any]) -> dict[str, Any]:
        """Make the upstream listen match ``filt``; returns what the upstream acknowledged."""
        async with self.lock:
            return await self._apply_locked(filt)

    async def _apply_locked(self, filt: dict[str, Any]) -> dict[str, Any]:
        if self.closed:
            return {}
        if self.unsupported and filt:
            raise FrameError(jsonrpc.METHOD_NOT_FOUND, "the upstream does not serve subscriptions/listen")
        old = self.current
        if not filt:
            self.current = None
            self.newest_acked = None
            self.acked = {}
            if old is not None:
                await self._retire(old)
            return {}
        if old is not None and old.filter == filt and not old.retired and old.ack.done() and not old.ack.exception():
            return self.acked
        run = _ListenRun(f"listen-{next(self._ids)}", filt)
        run.task = asyncio.create_task(self._run(run), name=f"legacy-listen:{run.id}")
        try:
            acked = await asyncio.wait_for(asyncio.shield(run.ack), self.session.settings.connect_timeout)
        except Exception as exc:
            run.retired = True
            run.task.cancel()
            if isinstance(exc, FrameError) and exc.code == jsonrpc.METHOD_NOT_FOUND:
                self.unsupported = True
            raise
        self.current = run
        self.acked = acked
        self._backoff = 0.5
        if old is not None:
            await self._retire(old)
        return acked

    async def _retire(self, run: _ListenRun) -> None:
        run.retired = True
        if run.task is not None and not run.task.done():
            run.task.cancel()
            with contextlib.suppress(BaseException):
                await run.task

    async def _run(self, run: _ListenRun) -> None:
        session = self.session
        req = lf.listen_request(run.id, session.identity, run.filter)

        async def emit(msg: Message) -> None:
            if msg.get("method") == lf.ACKNOWLEDGED:
                params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
                notif = params.get("notifications")
                if not run.ack.done():
                    run.ack.set_result(notif if isinstance(notif, dict) else {})
                    if not run.retired:
                        self.newest_acked = run
                return
            if run.retired or (self.newest_acked is not None and self.newest_acked is not run):
                return  # the replaced listen's tail: the new one covers it (dedupe during the overlap)
            out = lf.to_legacy_notification(msg)
            if out is None or out.get("method") not in lf.LISTEN_NOTIFICATIONS:
                return
            if out["method"] == "notifications/resources/updated":
                uri = (out.get("params") or {}).get("uri")
                if not session.wants_update(uri):
                    return
            await session.deliver_unsolicited(out)

        error: BaseException | None = None
        resp: Message | None = None
        try:
            resp = await session.upstream.call(req, session.ctx, emit)
        except asyncio.CancelledError:
            if not run.ack.done():
                run.ack.cancel()
            raise
        except Exception as exc:  # noqa: BLE001
            error = exc
        if not run.ack.done():
            if resp is not None and "error" in resp:
                err = resp["error"]
                run.ack.set_exception(FrameError(err.get("code", jsonrpc.INTERNAL_ERROR), str(err.get("message", "listen failed"))))
            else:
                run.ack.set_exception(UpstreamError(f"upstream listen ended before its acknowledgement: {error or resp}"))
            run.ack.exception()  # mark retrieved
            return
        if run.retired or self.closed or self.current is not run:
            return
        log.info("upstream listen %s ended (%s); re-listening", run.id, error or "closed")
        self._relisten = asyncio.create_task(self._reopen(run.filter))

    async def _reopen(self, filt: dict[str, Any]) -> None:
        while not self.closed:
            await asyncio.sleep(self._backoff)
            self._backoff = min(self._backoff * 2, 10.0)
            try:
                async with self.lock:
                    if self.closed or (self.current is not None and self.current.filter != filt):
                        return
                    self.current = None
                    acked = await self._apply_locked(filt)
            except Exception as exc:  # noqa: BLE001
                log.warning("re-listen failed: %s", exc)
                continue
            # Events may have been lost while no listen was open: invalidate generously.
            for key, method in (("toolsListChanged", "notifications/tools/list_changed"),
                                ("promptsListChanged", "notifications/prompts/list_changed"),
                                ("resourcesListChanged", "notifications/resources/list_changed")):
                if acked.get(key):
                    await self.session.deliver_unsolicited(jsonrpc.notification(method))
            for uri in acked.get("resourceSubscriptions") or []:
                await self.session.deliver_unsolicited(jsonrpc.notification("notifications/resources/updated", {"uri": uri}))
            return

    async def close(self) -> None:
        self.closed = True
        if self._relisten is not None:
            self._relisten.cancel()
        run, self.current = self.current, None
        if run is not None:
            await self._retire(run)


# ==============================================================================================
# One legacy session (transport independent)
# ==============================================================================================


class LegacySession:
    """A 2025 client's session: identity, subscriptions, in-flight requests, bridge->client requests."""

    def __init__(self, upstream: Upstream, settings: Settings, identity: lf.SessionIdentity, ctx: CallContext,
                 deliver: Send, session_id: str | None = None) -> None:
        self.upstream = upstream
        self.settings = settings
        self.identity = identity
        self.ctx = ctx
        self.session_id = session_id
        self._deliver = deliver
        self.initialized = False
        self.closed = False
        self.subscribed: set[str] = set()
        self.listener = _Listener(self)
        self.inflight: dict[tuple[str, Any], asyncio.Task[Message]] = {}
        self.recent_ids: deque[tuple[str, Any]] = deque()
        self.recent_set: set[tuple[str, Any]] = set()
        self.outstanding: dict[tuple[str, Any], asyncio.Future[Message]] = {}
        self.owners: dict[tuple[str, Any], tuple[str, Any]] = {}
        """bridge->client request -> the client request it was asked for."""
        self.clamp = lf.ProgressClamp()
        self.last_used = time.monotonic()
        self._out_ids = itertools.count(1)
        self._sub_lock = asyncio.Lock()

    # --- lifecycle -------------------------------------------------------------------------------

    def touch(self) -> None:
        self.last_used = time.monotonic()

    def expired(self, now: float) -> bool:
        return now - self.last_used > self.settings.session_idle_timeout and not self.inflight

    async def start(self) -> None:
        """Open the upstream listen for unsolicited list_changed (before the initialize result goes out)."""
        filt = lf.listen_filter(self.identity.server_capabilities, self.subscribed)
        if not filt:
            return
        try:
            await self.listener.apply(filt)
        except Exception as exc:  # noqa: BLE001 - a session without change notifications still works
            log.warning("session %s: upstream listen unavailable: %s", self.session_id, exc)

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for task in list(self.inflight.values()):
            task.cancel()
        for fut in self.outstanding.values():
            if not fut.done():
                fut.cancel()
        await self.listener.close()

    async def deliver_unsolicited(self, msg: Message) -> None:
        if not self.closed:
            await self._deliver(msg)

    def wants_update(self, uri: Any) -> bool:
        if not isinstance(uri, str):
            return False
        if uri in self.subscribed:
            return True
        # 2025 allows updates for sub-resources of a subscribed URI: over-deliver rather than under-deliver.
        return any(uri.startswith(s.rstrip("/") + "/") for s in self.subscribed)

    def mint_out_id(self) -> str:
        return f"bridge-{next(self._out_ids)}"

    # --- ids ---------------------------------------------------------------------------------------

    def claim_id(self, rid: RequestId) -> bool:
        """False when the client reuses a request id within the session (2025 forbids it)."""
        key = _id_key(rid)
        if key in self.inflight or key in self.recent_set:
            return False
        self.recent_ids.append(key)
        self.recent_set.add(key)
        if len(self.recent_ids) > RECENT_IDS:
            self.recent_set.discard(self.recent_ids.popleft())
        return True

    def begin(self, msg: Message, send: Send, ctx: CallContext) -> asyncio.Task[Message]:
        """Run one client request as a task (tracked for ``notifications/cancelled``)."""
        key = _id_key(msg["id"])
        task = asyncio.create_task(self.run_request(msg, ctx, send), name=f"legacy-req:{msg['id']!r}")
        self.inflight[key] = task
        task.add_done_callback(lambda _t: self.inflight.pop(key, None))
        return task

    # --- client frames ---------------------------------------------------------------------------

    def on_response(self, msg: Message) -> bool:
        fut = self.outstanding.get(_id_key(msg.get("id")))
        if fut is None or fut.done():
            return False
        fut.set_result(msg)
        return True

    async def on_notification(self, msg: Message) -> None:
        method = msg.get("method")
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        if method == "notifications/initialized":
            self.initialized = True
        elif method == "notifications/cancelled":
            rid = params.get("requestId")
            key = _id_key(rid)
            task = self.inflight.get(key)
            if task is not None and not task.done():
                task.cancel()
            # Questions the cancelled request is waiting on are void now, even if their answers are in flight.
            for out_key, owner in list(self.owners.items()):
                fut = self.outstanding.get(out_key)
                if owner == key and fut is not None and not fut.done():
                    fut.cancel()
        # notifications/roots/list_changed: the bridge keeps no roots cache, nothing to invalidate.
        # notifications/progress from the client (for bridge requests): nothing upstream wants it.

    # --- requests ----------------------------------------------------------------------------------

    async def run_request(self, msg: Message, ctx: CallContext, send: Send) -> Message:
        rid = msg["id"]
        method = msg["method"]
        try:
            if method == "ping":
                return jsonrpc.result_response(rid, {})
            if method == "initialize":
                return jsonrpc.error_response(rid, jsonrpc.INVALID_REQUEST, "Invalid Request: the session is already initialized")
            if method == "logging/setLevel":
                # Accepted even when discover does not list `logging` (deprecated in 2026): servers still log
                # to requests that carry a logLevel, and stamping it costs nothing.
                self.identity.log_level = lf.validate_log_level(msg.get("params"))
                return jsonrpc.result_response(rid, {})
            if method in ("resources/subscribe", "resources/unsubscribe"):
                return await self._subscription(msg)
            if method not in LEGACY_CLIENT_METHODS:
                return jsonrpc.error_response(rid, jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method}")
            return await self._forward(msg, ctx, send)
        except FrameError as exc:
            return jsonrpc.error_response(rid, exc.code, exc.message, exc.data)
        except UpstreamError as exc:
            return jsonrpc.error_response(rid, jsonrpc.INTERNAL_ERROR, f"Upstream error: {exc}")

    async def _subscription(self, msg: Message) -> Message:
        rid = msg["id"]
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        uri = params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise FrameError(jsonrpc.INVALID_PARAMS, "Invalid params: uri must be a non-empty string")
        res_caps = self.identity.server_capabilities.get("resources")
        if not (isinstance(res_caps, dict) and res_caps.get("subscribe")):
            raise FrameError(jsonrpc.METHOD_NOT_FOUND, f"Method not found: {msg['method']} (the server does not support subscriptions)")
        async with self._sub_lock:
            wanted = set(self.subscribed)
            if msg["method"] == "resources/subscribe":
                wanted.add(uri)
            else:
                wanted.discard(uri)
            filt = lf.listen_filter(self.identity.server_capabilities, wanted)
            try:
                acked = await self.listener.apply(filt)
            except FrameError as exc:
                if exc.code == jsonrpc.METHOD_NOT_FOUND:
                    raise FrameError(jsonrpc.METHOD_NOT_FOUND,
                                     f"Method not found: {msg['method']} (the upstream serves no subscriptions)") from None
                raise FrameError(jsonrpc.INTERNAL_ERROR, f"Subscription not accepted upstream: {exc.message}") from None
            except Exception as exc:  # noqa: BLE001
                raise FrameError(jsonrpc.INTERNAL_ERROR, f"Subscription not accepted upstream: {exc}") from None
            if msg["method"] == "resources/subscribe" and uri not in (acked.get("resourceSubscriptions") or []):
                raise FrameError(jsonrpc.INTERNAL_ERROR, "Subscription not accepted upstream", {"uri": uri})
            self.subscribed = wanted
        return jsonrpc.result_response(rid, {})

    async def _forward(self, msg: Message, ctx: CallContext, send: Send) -> Message:
        rid = msg["id"]
        method = msg["method"]
        canonical = lf.to_canonical_request(msg, self.identity)
        level = self.identity.log_level

        async def emit(note: Message) -> None:
            m = note.get("method")
            if m == "notifications/progress":
                if self.clamp.admit(note):
                    await send(note)
                return
            if m == "notifications/message":
                nl = (note.get("params") or {}).get("level")
                if level is None or LOG_LEVEL_RANK.get(nl, 99) < LOG_LEVEL_RANK[level]:
                    return
                await send(note)
                return
            out = lf.to_legacy_notification(note)
            if out is not None and out.get("method") in lf.LISTEN_NOTIFICATIONS:
                await self.deliver_unsolicited(out)

        token = (canonical["params"].get("_meta") or {}).get("progressToken")
        try:
            resp = await self.upstream.call(canonical, ctx, emit)
            accepted_urls: dict[str, str] = {}  # input key -> elicitationId of accepted URL elicitations
            rounds = 0
            while lf.result_type(resp) == "input_required":
                if not lf.is_mrtr_method(method):
                    return jsonrpc.error_response(rid, jsonrpc.INTERNAL_ERROR,
                                                  f"Upstream returned input_required for {method}, which cannot carry it")
                rounds += 1
                if rounds > self.settings.mrtr_max_rounds:
                    return jsonrpc.error_response(
                        rid, jsonrpc.INTERNAL_ERROR,
                        f"Upstream still requires input after {self.settings.mrtr_max_rounds} rounds; giving up",
                        {"maxRounds": self.settings.mrtr_max_rounds})
                result = resp["result"]
                try:
                    round_inputs = lf.input_round(result, self.identity.client_capabilities, self.mint_out_id)
                    answers = await asyncio.gather(*(self._ask(p, send, rid) for p in round_inputs))
                    responses = {p.key: lf.input_response(p, a) for p, a in zip(round_inputs, answers, strict=True)}
                except lf.MrtrAbort as abort:
                    return abort.to_response(rid)
                accepted_urls.update(lf.accepted_url_elicitations(round_inputs, responses))
                if not round_inputs:
                    await asyncio.sleep(min(0.05 * rounds, 1.0))  # requestState-only (load shedding): back off a little
                retry = lf.retry_request(canonical, rid, responses, result.get("requestState"))
                resp = await self.upstream.call(retry, ctx, emit)
                # The upstream moved past a URL elicitation once it stops asking it: tell the client it completed.
                for key, eid in lf.finished_url_elicitations(accepted_urls, resp):
                    accepted_urls.pop(key, None)
                    await send(lf.elicitation_complete(eid))
            return lf.to_legacy_response(method, resp, rid, msg.get("params") if isinstance(msg.get("params"), dict) else None)
        finally:
            if token is not None:
                self.clamp.forget(token)

    async def _ask(self, pending: lf.PendingInput, send: Send, owner: RequestId) -> Message:
        """Send one bridge->client request on the request's stream and wait for the client's answer."""
        req_id = pending.request["id"]
        key = _id_key(req_id)
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self.outstanding[key] = fut
        self.owners[key] = _id_key(owner)
        try:
            await send(pending.request)
            try:
                answer = await asyncio.wait_for(fut, self.settings.request_timeout)
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError  # the answer raced the client's cancel: the cancel wins
                return answer
            except TimeoutError:
                with contextlib.suppress(Exception):
                    await send(lf.cancel_notification(req_id, "timed out"))
                return jsonrpc.error_response(req_id, jsonrpc.INTERNAL_ERROR, "The client did not answer in time")
        except asyncio.CancelledError:
            # The originating request was cancelled: withdraw our request from the client.
            with contextlib.suppress(Exception):
                await asyncio.shield(send(lf.cancel_notification(req_id, "the originating request was cancelled")))
            raise
        finally:
            self.outstanding.pop(key, None)
            self.owners.pop(key, None)


async def open_session(upstream: Upstream, settings: Settings, msg: Message, ctx: CallContext, deliver: Send,
                       session_id: str | None = None) -> tuple[LegacySession | None, Message]:
    """Answer ``initialize`` locally from the upstream's discover result; returns (session or None, response)."""
    rid = msg["id"]
    try:
        identity = lf.parse_initialize(msg.get("params"), settings.bridge_info())
        await upstream.start()
        discover = await upstream.discover(ctx)
        result = lf.initialize_result(discover, identity, settings.bridge_info())
    except FrameError as exc:
        return None, jsonrpc.error_response(rid, exc.code, exc.message, exc.data)
    except UpstreamError as exc:
        return None, jsonrpc.error_response(rid, jsonrpc.INTERNAL_ERROR, f"Upstream unavailable: {exc}")
    session = LegacySession(upstream, settings, identity, ctx, deliver, session_id)
    await session.start()
    return session, jsonrpc.result_response(rid, result)


def call_context(request: Request) -> CallContext:
    return http_call_context(request, LEGACY)


# ==============================================================================================
# Streamable HTTP (2025-11-25)
# ==============================================================================================


class _HttpSession:
    def __init__(self, sid: str, principal: str | None, settings: Settings) -> None:
        self.sid = sid
        self.principal = principal
        self.settings = settings
        self.core: LegacySession | None = None
        self.streams: dict[str, EventStream] = {}
        self.get_stream = EventStream("g", settings.event_retention)
        self.streams["g"] = self.get_stream
        self.get_seen = 0
        self._keys = itertools.count(1)

    def new_stream(self) -> EventStream:
        now = time.monotonic()
        for key in [k for k, s in self.streams.items() if k != "g" and s.expired(now)]:
            del self.streams[key]
        stream = EventStream(f"p{next(self._keys)}", self.settings.event_retention)
        self.streams[stream.key] = stream
        return stream

    async def deliver(self, msg: Message) -> None:
        self.get_stream.push(msg)

    async def close(self) -> None:
        if self.core is not None:
            await self.core.close()
        for stream in self.streams.values():
            stream.close()


class LegacyHttpFront:
    """2025-11-25 Streamable HTTP front over a canonical upstream (sessions, GET stream, DELETE)."""

    def __init__(self, upstream: Upstream, settings: Settings) -> None:
        self.upstream = upstream
        self.settings = settings
        self.sessions: dict[str, _HttpSession] = {}
        self._reaper: asyncio.Task[None] | None = None

    # --- helpers ---------------------------------------------------------------------------------

    def _ensure_reaper(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.create_task(self._reap(), name="legacy-session-reaper")

    async def _reap(self) -> None:
        interval = max(0.5, min(30.0, self.settings.session_idle_timeout / 4))
        while self.sessions:
            await asyncio.sleep(interval)
            now = time.monotonic()
            for sid, sess in list(self.sessions.items()):
                if sess.core is not None and sess.core.expired(now):
                    log.info("session %s expired", sid)
                    self.sessions.pop(sid, None)
                    await sess.close()

    def _lookup(self, request: Request, rid: RequestId | None) -> _HttpSession | Response:
        sid = request.headers.get("mcp-session-id")
        if not sid:
            return rpc_error(errors.LEGACY_SESSION_REQUIRED_STATUS,
                             jsonrpc.INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required", rid)
        sess = self.sessions.get(sid)
        if sess is None or sess.core is None or sess.core.closed:
            return rpc_error(errors.LEGACY_SESSION_NOT_FOUND_STATUS, jsonrpc.INVALID_REQUEST, "Session not found", rid)
        if sess.core.expired(time.monotonic()):
            self.sessions.pop(sid, None)
            asyncio.get_running_loop().create_task(sess.close())
            return rpc_error(errors.LEGACY_SESSION_NOT_FOUND_STATUS, jsonrpc.INVALID_REQUEST, "Session expired", rid)
        if CallContext.principal_of(request.headers.get("authorization")) != sess.principal:
            # Sessions are bound to the credentials that opened them; others must not learn they exist.
            return rpc_error(errors.LEGACY_SESSION_NOT_FOUND_STATUS, jsonrpc.INVALID_REQUEST, "Session not found", rid)
        # Absent and no other way to know: assume 2025-03-26 (2025-11-25 transports); anything not legacy is refused.
        version = request.headers.get("mcp-protocol-version") or errors.LEGACY_ASSUMED_VERSION
        if version not in LEGACY_VERSIONS:
            return rpc_error(errors.LEGACY_BAD_VERSION_STATUS,
                             jsonrpc.INVALID_REQUEST, f"Bad Request: unsupported MCP-Protocol-Version {version!r}", rid)
        sess.core.touch()
        return sess

    # --- POST --------------------------------------------------------------------------------------

    async def handle_post(self, request: Request, msg: Message) -> Response:
        rid = msg.get("id") if jsonrpc.is_request(msg) else None
        if jsonrpc.is_request(msg) and msg.get("method") == "initialize":
            return await self._initialize(request, msg)
        found = self._lookup(request, rid)
        if isinstance(found, Response):
            return found
        sess = found
        core = sess.core
        assert core is not None
        if jsonrpc.is_response(msg):
            core.on_response(msg)
            return Response(status_code=errors.LEGACY_ACCEPTED_STATUS)
        if jsonrpc.is_notification(msg):
            await core.on_notification(msg)
            return Response(status_code=errors.LEGACY_ACCEPTED_STATUS)
        if not core.claim_id(msg["id"]):
            return rpc_error(errors.LEGACY_REFUSED_STATUS,
                             jsonrpc.INVALID_REQUEST, "Invalid Request: request id already used in this session", msg["id"])
        if msg.get("method") == "ping":
            return json_message(jsonrpc.result_response(msg["id"], {}))
        stream = sess.new_stream()

        async def send(out: Message) -> None:
            stream.push(out)

        task = core.begin(msg, send, call_context(request))

        def finish(t: asyncio.Task[Message]) -> None:
            if not t.cancelled() and t.exception() is None:
                stream.push(t.result())
            elif not t.cancelled():
                log.error("request %r failed: %r", msg["id"], t.exception())
                stream.push(jsonrpc.error_response(msg["id"], jsonrpc.INTERNAL_ERROR, "Internal error"))
            stream.close()

        task.add_done_callback(finish)
        if lf.is_mrtr_method(msg["method"]):
            # Calls that may run long or need client input answer on SSE at once, primed with an event id
            # so a dropped connection can resume with Last-Event-ID (2025: disconnection is not a cancel).
            return self._sse(stream, 0, prime=True)
        # Otherwise choose JSON vs SSE lazily: SSE only when something precedes the final response.
        first_seen = stream._changed
        while not stream.events and not stream.closed:
            await first_seen.wait()
            first_seen = stream._changed
        if stream.closed and len(stream.events) <= 1:
            sess.streams.pop(stream.key, None)
            if stream.events:
                return json_message(stream.events[0][2])
            # Cancelled by the client: it expects no response; give the POST an id-carrying error it will ignore.
            return json_message(jsonrpc.error_response(msg["id"], jsonrpc.INTERNAL_ERROR, "Request cancelled"))
        return self._sse(stream, 0)

    def _sse(self, stream: EventStream, after: int, prime: bool = False, exclusive: bool = False) -> StreamingResponse:
        keepalive = self.settings.sse_keepalive
        token = stream.take_over() if exclusive else None

        async def body() -> AsyncIterator[bytes]:
            stream.consumers += 1
            try:
                if prime:
                    yield sse_priming(f"{stream.key}.{after}", SSE_RETRY_MS)
                async for item in stream.iterate(after, keepalive, token):
                    if item is None:
                        yield KEEPALIVE
                    else:
                        yield sse_event(item[1], f"{stream.key}.{item[0]}")
            finally:
                stream.consumers -= 1

        return StreamingResponse(body(), media_type="text/event-stream", headers=dict(SSE_HEADERS))

    async def _initialize(self, request: Request, msg: Message) -> Response:
        ctx = call_context(request)
        sid = secrets.token_urlsafe(24)
        sess = _HttpSession(sid, ctx.principal, self.settings)
        core, resp = await open_session(self.upstream, self.settings, msg, ctx, sess.deliver, sid)
        if core is None:
            return json_message(resp)
        sess.core = core
        core.claim_id(msg["id"])
        self.sessions[sid] = sess
        self._ensure_reaper()
        return json_message(resp, headers={"Mcp-Session-Id": sid})

    # --- GET ---------------------------------------------------------------------------------------

    async def handle_get(self, request: Request) -> Response:
        accept = request.headers.get("accept", "")
        if "text/event-stream" not in accept and "*/*" not in accept:
            return rpc_error(errors.LEGACY_NOT_ACCEPTABLE_STATUS,
                             jsonrpc.INVALID_REQUEST, "Not Acceptable: GET requires Accept: text/event-stream")
        found = self._lookup(request, None)
        if isinstance(found, Response):
            return found
        sess = found
        last = request.headers.get("last-event-id")
        if last:
            key, _, seq = last.rpartition(".")
            stream = sess.streams.get(key)
            if stream is not None and seq.isdigit():
                # Resume: replay what followed the client's last event (a POST stream ends after its response).
                return self._sse(stream, int(seq), exclusive=stream is sess.get_stream)
            # Unknown or expired stream: start a fresh GET stream (allowed).
        # One consumer per GET stream (each message goes to exactly one stream): a new GET replaces an older one,
        # which is usually a connection the client already gave up on. The first GET of a session receives what
        # was queued since initialize; later ones start now.
        after = sess.get_seen
        sess.get_seen = sess.get_stream.seq
        return self._sse(sess.get_stream, after, exclusive=True)

    # --- DELETE --------------------------------------------------------------------------------------

    async def handle_delete(self, request: Request) -> Response:
        found = self._lookup(request, None)
        if isinstance(found, Response):
            return found
        self.sessions.pop(found.sid, None)
        await found.close()
        return Response(status_code=200)

    async def aclose(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        sessions, self.sessions = list(self.sessions.values()), {}
        for sess in sessions:
            await sess.close()


# ==============================================================================================
# stdio (2025-11-25)
# ==============================================================================================


class LegacyStdioSession:
    """One 2025 client on stdio. ``on_frame`` is called for every client frame in order; it never blocks."""

    def __init__(self, upstream: Upstream, settings: Settings, write: Send) -> None:
        self.upstream = upstream
        self.settings = settings
        self.write = write
        self.core: LegacySession | None = None
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
            if self.core is not None:
                self.core.on_response(msg)
            return
        if jsonrpc.is_notification(msg):
            if self.core is not None:
                await self.core.on_notification(msg)
            return
        method = msg.get("method")
        rid = msg["id"]
        if method == "initialize":
            if self._init_task is not None:
                await self._send(jsonrpc.error_response(rid, jsonrpc.INVALID_REQUEST, "Invalid Request: already initialized"))
                return
            self._init_task = self._spawn(self._initialize(msg))
            return
        if self._init_task is None:
            if method == "ping":
                await self._send(jsonrpc.result_response(rid, {}))
            else:
                await self._send(jsonrpc.error_response(rid, jsonrpc.INVALID_REQUEST,
                                                        "Invalid Request: the session is not initialized (send initialize first)"))
            return
        self._spawn(self._request(msg))

    async def _initialize(self, msg: Message) -> None:
        core, resp = await open_session(self.upstream, self.settings, msg, self.ctx, self._send)
        self.core = core
        if core is not None:
            core.claim_id(msg["id"])
        await self._send(resp)

    async def _request(self, msg: Message) -> None:
        assert self._init_task is not None
        await asyncio.shield(self._init_task)
        core = self.core
        if core is None:
            await self._send(jsonrpc.error_response(msg["id"], jsonrpc.INVALID_REQUEST,
                                                    "Invalid Request: the session failed to initialize"))
            return
        if not core.claim_id(msg["id"]):
            await self._send(jsonrpc.error_response(msg["id"], jsonrpc.INVALID_REQUEST,
                                                    "Invalid Request: request id already used in this session"))
            return
        task = core.begin(msg, self._send, self.ctx)
        try:
            resp = await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():
                return  # cancelled by the client: no response (2025 cancellation)
            raise
        await self._send(resp)

    async def aclose(self) -> None:
        self._closed = True
        if self.core is not None:
            await self.core.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

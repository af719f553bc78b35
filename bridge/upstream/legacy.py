"""Direction A shell: a 2025-era server behind the canonical 2026 interface.

Keeps the live side of the session pool (transports, ``LegacySession`` objects, waiters, timers) next
to its pure bookkeeping (``mcp_eras.bridge.translate.legacy_server.pool.Pool``), drives each call by executing the
actions of its ``mcp_eras.bridge.translate.legacy_server.call.LegacyCall`` machine, seals ``requestState`` for parked
calls and serves ``subscriptions/listen`` from the sessions' unsolicited notifications.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any

import anyio

from mcp_eras.bridge import telemetry
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, UpstreamError
from mcp_eras.bridge.state import StateSealer
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.jsonrpc import FrameError, Message, RequestId
from mcp_eras.bridge.translate.legacy_server import frames as tx
from mcp_eras.bridge.translate.legacy_server import listen
from mcp_eras.bridge.translate.legacy_server import session as rules
from mcp_eras.bridge.translate.legacy_server.leases import LeaseLine
from mcp_eras.bridge.translate.legacy_server.pool import Grant, Limits, ParkedRec, Pool, Refuse, Wait, lease_key
from mcp_eras.bridge.translate.mrtr_steps import AskClient, Finish, Step, ToClient, ToServer, Wake
from mcp_eras.bridge.upstream.deadline import Deadline
from mcp_eras.bridge.upstream.legacy_driver import LegacySession, LiveCall, now_ms
from mcp_eras.bridge.upstream.legacy_transport import LegacyTransport

log = logging.getLogger("mcp_bridge.legacy")

TransportFactory = Callable[[CallContext], LegacyTransport]
WAITED_S = 0.05
"""A call that spent longer before its request went upstream (a session's start, room in a stdio child's input) has
the rest of its request timeout left; one that did not gets the whole (a deadline of the same length for every call
shares one loop timer: ``fifo_timers``)."""


@dataclass(eq=False)
class Listener:
    listen_id: RequestId
    principal: str | None
    acked: dict[str, Any]
    queue: asyncio.Queue[Message | None] = field(default_factory=asyncio.Queue)


def limits_of(settings: Settings) -> Limits:
    """The pool's caps from the settings; with ``share_child`` one session (one child) for every caller, whose
    input-capable calls take its lease in turn."""
    shared = settings.share_child
    return Limits(
        per_identity_sessions=1 if shared else settings.pool_per_identity, total_sessions=1 if shared else settings.pool_max_sessions,
        parked_per_identity=settings.parked_total if shared else settings.parked_per_identity, parked_total=settings.parked_total,
        idle_ms=int(settings.pool_idle_timeout * 1000), departed_ms=int(settings.pool_departed_timeout * 1000), share_child=shared)


class LegacyUpstream(Upstream):
    era = eras.LEGACY
    answers_refusals = True  # (``call``)

    def __init__(self, transport_factory: TransportFactory, settings: Settings, name: str = "upstream",
                 limits: Limits | None = None, prestart: Callable[[], Awaitable[None]] | None = None) -> None:
        self.transport_factory = transport_factory
        self.prestart = prestart
        """Replaces the provisional session of ``start()`` (a stdio target: spawn the child that the first session
        adopts and initializes for its own caller, so one child, not two)."""
        self.settings = settings
        self.name = name
        self.limits = limits or limits_of(settings)
        self.pool = Pool()
        self.live: dict[str, LegacySession] = {}
        self.sealer = StateSealer(settings.state_key, settings.instance_id, settings.state_ttl)
        self.listeners: set[Listener] = set()
        self.restarts = 0
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.leases = LeaseLine()
        """Who waits for an input lease, in the order they are served (pure: ``legacy_server.leases``)."""
        self._waiters: dict[int, asyncio.Future[None]] = {}
        """Token of ``leases`` -> the future its waiter awaits (while it waits)."""
        self._tokens = itertools.count(1)
        self._opening: dict[str, asyncio.Event] = {}
        """Sessions granted new whose predecessors are still closing: others granted them wait (never a KeyError)."""
        self._closed = False
        self._new_sid = secrets.token_hex(6)
        self._reaper: asyncio.TimerHandle | None = None

    # --- Upstream interface ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Fail fast: initialize one session now. It is provisional: the first client session of
        another identity retires it while idle. With ``prestart`` that runs instead (no provisional session)."""
        if self.prestart is not None:
            await self.prestart()
            return
        await self._ready(*await self._session(None, CallContext()))

    async def discover(self, ctx: CallContext, request: Message | None = None) -> Message:
        # Any ready session of this caller has the upstream's InitializeResult; prefer it to a new one. A new one
        # is opened for the identity the caller's requests carry (when known), so it is the one they then use.
        for session in self.live.values():
            if session.rec.principal == ctx.principal and session.state == "ready":
                return self._discover_result(session)
        session = await self._ready(*await self._session(request or ctx.identity_request(), ctx))
        return self._discover_result(session)

    async def _ready(self, session: LegacySession, _exclusive: bool = False) -> LegacySession:
        """Ready a granted session for a caller that begins no call on it (its claim ends here)."""
        try:
            await self._start(session)
        finally:
            self.pool.unclaim(session.sid)
            self._arm_reaper()
        return session

    async def _start(self, session: LegacySession) -> None:
        """Initialize ``session`` (unless ready) within the request timeout. A handshake that cannot finish in time
        (a server that dies at start, respawned with backoff) is a named error then."""
        if session.state == "ready":
            return
        try:
            async with asyncio.timeout(self.settings.request_timeout):
                await session.ensure_ready()
        except TimeoutError:
            raise UpstreamError(rules.no_start_in_time(self.settings.request_timeout, session.faults())) from None

    async def roots_changed(self, ctx: CallContext) -> None:
        """Tell the ready sessions of the client's identity (each declared ``roots.listChanged``, see
        ``tx.client_capabilities_to_legacy``): the server asks ``roots/list`` again, held for their next call."""
        request = ctx.identity_request()
        if request is None:
            return
        note = jsonrpc.notification("notifications/roots/list_changed")
        for sid in self.pool.identity_sessions(request, ctx.principal, self.limits.share_child):
            session = self.live.get(sid)
            if session is not None and session.state == "ready":
                await session.send_quietly(note)

    def _discover_result(self, session: LegacySession) -> Message:
        return tx.discover_result(session.init_result, supported_versions=list(eras.MODERN_VERSIONS),
                                  ttl_ms=self.settings.discover_ttl_ms, cache_scope=self.settings.cache_scope)

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        rid = request.get("id")
        try:
            response = await self._call_once(request, ctx, emit)
            if "error" in response and rules.session_expired(response):
                # 2025-11-25 basic/transports.mdx §Session Management: a 404 means the server forgot the
                # session and did not process the request. Re-initialize and send it once more.
                log.info("upstream %s: session expired; re-initializing and retrying %s", self.name, request["method"])
                response = await self._call_once(request, ctx, emit)
            return response
        except FrameError as exc:
            exc.id = rid
            return exc.to_response()
        except UpstreamError as exc:
            return jsonrpc.upstream_error(rid, exc)

    async def _call_once(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        method = request["method"]
        params = request.get("params") if isinstance(request.get("params"), dict) else {}
        if method == "subscriptions/listen":
            return await self._listen(request, ctx, emit)
        if method == "server/discover":
            # The server's InitializeResult does not depend on who asks: any ready session of the caller's
            # credentials answers (on a cold stdio upstream, the one start() opened: no second spawn first).
            return jsonrpc.result_response(request["id"], await self.discover(ctx, request))
        if "requestState" in params and method in eras.MRTR_METHODS:
            return await self._resume(request, ctx, emit)
        meta = params.get("_meta")  # (``eras.request_meta``: looked up once for the pool and the call)
        if not isinstance(meta, dict):
            meta = {}
        session, exclusive = await self._session(request, ctx, meta)
        live: LiveCall | None = None
        began = time.monotonic()  # one deadline for the call from here: its session's start and first send included
        try:
            if session.state != "ready":
                await self._start(session)
            upstream_id = session.next_id()
            machine, actions = self.pool.begin_call(
                session.sid, request, upstream_id, exclusive=exclusive, ttl_ms=self.settings.ttl_ms,
                server_info=session.server_info if self.settings.stamp_server_info else None, cache_scope=self.settings.cache_scope,
                now_ms=now_ms(), meta=meta, settle_ms=int(self.settings.session_start_settle * 1000))
            loop = session.loop or asyncio.get_running_loop()
            live = session.open_call(LiveCall(upstream_id, method, machine, loop))
            if machine.log_level is not None:
                await session.ensure_log_level()
            # The request goes upstream here, unless the session holds requests its client must answer first
            # (e.g. roots/list after initialized: ``LegacyCall.settle_first``): then the call asks them, below.
            first = actions[0]
            if type(first) is ToServer:
                await session.send(first.frame)  # type: ignore[union-attr]
                actions = actions[1:]
        except BaseException:
            # Whatever failed (a lost session, a frame that cannot be serialized), the lease goes back.
            if live is not None:
                session.close_call(live, abandon=True)
            else:
                self.pool.unclaim(session.sid)
                if exclusive:
                    self._release(session)
            raise
        spent = time.monotonic() - began
        return await self._drive(session, live, request, ctx, emit, actions,
                                 self.settings.request_timeout - spent if spent > WAITED_S else None)

    async def aclose(self) -> None:
        self._closed = True
        self._wake_everyone()
        for listener in list(self.listeners):
            listener.queue.put_nowait(None)
        for handle in self._timers.values():
            handle.cancel()
        if self._reaper is not None:
            self._reaper.cancel()
        sessions = list(self.live.values())
        self.live.clear()
        for s in sessions:
            with contextlib.suppress(Exception):
                await s.close()

    @property
    def sessions(self) -> dict[str, list[LegacySession]]:
        """Live sessions grouped by identity (a read-only view: the fleet probe reads their InitializeResult)."""
        groups: dict[str, list[LegacySession]] = {}
        for session in self.live.values():
            groups.setdefault(session.rec.key, []).append(session)
        return groups

    def status(self) -> dict[str, Any]:
        sessions = list(self.live.values())
        return {
            "era": self.era,
            "sessions": len(sessions),
            "ready": sum(1 for s in sessions if s.state == "ready"),
            "restarts": self.restarts,
            "parked": len(self.pool.parked),
            "listeners": len(self.listeners),
            "refused": dict(self.pool.refused),
            "transports": [s.transport.describe() for s in sessions[:8]],
        }

    # --- pool ------------------------------------------------------------------------------------------

    async def _session(self, request: Message | None, ctx: CallContext,
                       meta: dict[str, Any] | None = None) -> tuple[LegacySession, bool]:
        """A session of the caller's identity, and whether it comes with its input lease (then this
        waits, with the request timeout as deadline, while every session of the identity runs an
        input-capable call: in a first-come first-served queue per identity, woken one per freed lease)."""
        choice: Grant | Wait | None = None
        # A newcomer does not overtake the queue; a woken waiter that lost its lease anyway goes back to its head.
        key = lease_key(request, ctx.principal, self.limits.share_child) if request is not None and self.leases.queues else None
        queued = key is not None and self.leases.waiting(key, self._live)
        if not queued:
            # The common case: a lease is free now (the same first step as the loop below, without its deadline scope).
            if self._closed:
                raise UpstreamError("bridge is shutting down")
            choice = self._acquire(request, ctx, meta)
        if not isinstance(choice, Grant):
            choice = await self._wait_for_grant(request, ctx, key, queued=queued, first_done=not queued)
        if not choice.new:
            for sid in choice.retire:
                retired = self.live.pop(sid, None)
                if retired is not None:
                    self.spawn(retired.close())
            if choice.sid not in self._opening:
                session = self.live.get(choice.sid)
                if session is not None:
                    return session, choice.exclusive  # live already (``_opened`` without its coroutine)
            return await self._opened(choice), choice.exclusive
        # Sessions evicted or retired for a new one are closed before it opens: never more live children than the cap.
        # Callers granted the new session meanwhile (same identity) wait for it in ``_opened``.
        opening = self._opening[choice.sid] = asyncio.Event()
        try:
            with anyio.CancelScope(shield=True):
                for sid in (*choice.evict, *choice.retire):
                    old = self.live.pop(sid, None)
                    if old is not None:
                        with contextlib.suppress(Exception):
                            await old.close()
            session = LegacySession(self, self.transport_factory(ctx), self.pool.sessions[choice.sid])
            self.live[choice.sid] = session
        finally:
            opening.set()
            self._opening.pop(choice.sid, None)
        return session, choice.exclusive

    def _acquire(self, request: Message | None, ctx: CallContext, meta: dict[str, Any] | None = None) -> Grant | Wait:
        choice = self.pool.acquire(request, ctx.principal, self._new_sid, limits=self.limits, now_ms=now_ms(), meta=meta)
        if isinstance(choice, Refuse):
            raise rules.refusal_error(choice)
        if isinstance(choice, Grant) and choice.new:
            self._new_sid = secrets.token_hex(6)  # the id offered for a new session is used up only when one opens
        return choice

    async def _wait_for_grant(self, request: Message | None, ctx: CallContext, key: str | None, *, queued: bool,
                              first_done: bool) -> Grant:
        """Queue for an input lease (``first_done``: this caller just asked the pool and was told to wait),
        with the request timeout as deadline."""
        with telemetry.waiting("mcp_eras.lease_wait"), anyio.move_on_after(self.settings.request_timeout):  # (issue #32)
            while True:
                if self._closed:
                    raise UpstreamError("bridge is shutting down")
                if not queued and not first_done:
                    choice = self._acquire(request, ctx)
                    if isinstance(choice, Grant):
                        return choice
                first_done = False
                if key is None:  # only input-capable calls wait
                    assert request is not None
                    key = lease_key(request, ctx.principal, self.limits.share_child)
                    assert key is not None
                await self._wait_for_lease(key, at_head=not queued)
                queued = False
        self.pool.refused["lease_wait"] = self.pool.refused.get("lease_wait", 0) + 1
        raise rules.no_session_in_time()

    async def _opened(self, choice: Grant) -> LegacySession:
        """The live session of an existing grant, once its opener has made it live."""
        opening = self._opening.get(choice.sid)
        if opening is not None:
            await opening.wait()
        session = self.live.get(choice.sid)
        if session is None:  # its opener failed before making it live: the grant goes back
            self.pool.unclaim(choice.sid)
            if choice.exclusive:
                self.pool.release(choice.sid)
                self._lease_freed(choice.sid)
            raise UpstreamError("upstream session could not be opened")
        return session

    def _release(self, session: LegacySession) -> None:
        self.pool.release(session.sid)
        self._lease_freed(session.sid)

    def call_closed(self, session: LegacySession, upstream_id: int) -> None:
        self.pool.close_call(session.sid, upstream_id, now_ms())
        self._lease_freed(session.sid)
        if self._reaper is None:
            self._arm_reaper()

    def _arm_reaper(self) -> None:
        """Close idle sessions when due (``Pool.reap``), not only when a caller comes: a client that has left leaves
        its child behind for 1.5 x ``pool_departed_timeout`` at most. One timer at a time, armed here in O(1) (on
        every call's end); the sessions are looked at only when it fires."""
        if self._reaper is None and not self._closed:
            self._reaper = asyncio.get_running_loop().call_later(self.limits.departed_ms / 2000, self._reap)

    def _reap(self) -> None:
        self._reaper = None
        now = now_ms()
        for sid in self.pool.reap(now, self.limits):
            session = self.live.pop(sid, None)
            if session is not None:
                log.info("upstream %s: closing a session idle past its limit", self.name)
                self.spawn(session.close())
        due = self.pool.next_reap_ms(self.limits)
        if due is not None and not self._closed:
            delay = min(due - now, self.limits.departed_ms // 2) / 1000
            self._reaper = asyncio.get_running_loop().call_later(max(0.0, delay), self._reap)

    def session_lost(self, session: LegacySession) -> None:
        for rec in self.pool.lost(session.sid):
            self._cancel_timer(rec.puc)
        self._lease_freed(session.sid)

    # --- lease waiters (``legacy_server.leases`` decides who is woken; here they wait) ---------------------

    def _waiter(self) -> tuple[asyncio.Future[None], int]:
        token = next(self._tokens)
        fut = self._waiters[token] = asyncio.get_running_loop().create_future()
        return fut, token

    def _live(self, token: int) -> bool:
        fut = self._waiters.get(token)
        return fut is not None and not fut.done()

    def _set(self, tokens: Iterable[int]) -> None:
        for token in tokens:
            fut = self._waiters.get(token)
            if fut is not None and not fut.done():
                fut.set_result(None)

    async def _wait_for_lease(self, key: str, *, at_head: bool) -> None:
        """Queue for a lease of identity ``key`` until ``_wake`` names this waiter. A waiter cancelled
        (deadline, client gone) after being woken hands its wake to the next one: no lost wake-up."""
        fut, token = self._waiter()
        self.leases.join(key, token, at_head=at_head)
        try:
            await fut
        except BaseException:
            if fut.done() and not fut.cancelled():
                self.leases.took_wake(key)
                self._wake(key)
            fut.cancel()
            raise
        finally:
            self._waiters.pop(token, None)
        self.leases.took_wake(key)

    def _lease_freed(self, sid: str) -> None:
        """A lease of session ``sid`` may be free: a parked call resuming there takes it first, else the identity's
        next waiters are woken (``LeaseLine.freed``)."""
        leases = self.leases
        if leases.queues or leases.resumers:  # (``LeaseLine.idle``, read here: nobody waits on almost every call)
            self._set(leases.freed(sid, self.pool, self.limits, self._live))

    def _wake(self, key: str) -> None:
        self._set(self.leases.wake(key, self.pool, self.limits, self._live))

    def _wake_everyone(self) -> None:
        """Shutting down: every waiter wakes, sees it, and is answered."""
        self._set(self.leases.everyone())

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- driving one call ------------------------------------------------------------------------------

    async def _drive(self, session: LegacySession, live: LiveCall, request: Message, ctx: CallContext, emit: Emit,
                     actions: list[Step], budget: float | None = None) -> Message:
        """Execute the machine's steps and feed it the call's frames until it finishes or asks the client."""
        machine = live.machine
        assert machine is not None
        wake_at: int | None = None
        handed_off = False
        # No anyio cancel scope, no context manager per call; ``budget``: what is left of the call's time.
        deadline = Deadline(self.settings.request_timeout if budget is None else max(0.0, budget), live.loop)
        try:
            while True:
                for action in actions:
                    kind = type(action)  # (the steps are final classes; the usual last one, Finish, is looked at first)
                    if kind is Finish:
                        handed_off = True
                        session.close_call(live)
                        return action.response  # type: ignore[union-attr]
                    if kind is ToServer:
                        await session.send_quietly(action.frame)  # type: ignore[union-attr]
                    elif kind is ToClient:
                        await emit(action.frame)  # type: ignore[union-attr]
                    elif kind is Wake:
                        wake_at = action.at_ms  # type: ignore[union-attr]
                    elif kind is AskClient:
                        handed_off = True
                        return self._park(session, live, request, ctx, action.inputs)  # type: ignore[union-attr]
                if wake_at is None:
                    msg = await live.queue.get()
                else:
                    try:
                        msg = await asyncio.wait_for(live.queue.get(), max(0.0, (wake_at - now_ms()) / 1000))
                    except TimeoutError:
                        wake_at = None
                        actions = machine.on_timer(now_ms())
                        continue
                actions = machine.on_upstream(msg, now_ms())
        except asyncio.CancelledError:
            if deadline.expired_here():
                return rules.no_answer_in_time(request["id"], session.faults())
            raise
        finally:
            deadline.close()
            if not handed_off:
                with anyio.CancelScope(shield=True):
                    await self._give_up(session, live, "client cancelled or timed out")

    async def _give_up(self, session: LegacySession, live: LiveCall, reason: str) -> None:
        assert live.machine is not None
        for action in live.machine.cancel(reason):
            if isinstance(action, ToServer):
                await session.send_quietly(action.frame)
        session.close_call(live, abandon=True)

    # --- MRTR: park and resume -----------------------------------------------------------------------

    def _park(self, session: LegacySession, live: LiveCall, request: Message, ctx: CallContext,
              input_requests: dict[str, Any]) -> Message:
        machine = live.machine
        assert machine is not None
        puc = secrets.token_urlsafe(12)
        # A parked call lives no longer than the requestState that names it.
        lifetime = rules.parked_lifetime(self.settings.parked_timeout, self.settings.state_ttl)
        rec, released = self.pool.park(session.sid, machine, request, puc, ctx.principal,
                                       expires_ms=now_ms() + int(lifetime * 1000), limits=self.limits)
        for old in released:
            log.info("upstream %s: parked-call cap reached; releasing the oldest", self.name)
            self._expire(old.puc, old)
        self._lease_freed(session.sid)
        self._timers[puc] = asyncio.get_running_loop().call_later(lifetime, self._expire, puc)
        token = self.sealer.seal(puc=puc, principal=ctx.principal, method=rec.method, digest=rec.digest, round=rec.round)
        return jsonrpc.result_response(request["id"], tx.input_required_result(input_requests, token, machine.server_info))

    def _cancel_timer(self, puc: str) -> None:
        handle = self._timers.pop(puc, None)
        if handle is not None:
            handle.cancel()

    def _expire(self, puc: str, rec: ParkedRec | None = None) -> None:
        self._cancel_timer(puc)
        rec = rec or self.pool.take(puc)
        session = self.live.get(rec.sid) if rec is not None else None
        live = session.calls.get(rec.upstream_id) if session is not None and rec is not None else None
        if session is not None and live is not None:
            log.info("upstream %s: parked call released; answering its upstream requests", self.name)
            self.spawn(self._give_up(session, live, "input not provided in time"))

    async def _resume(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        params = request["params"]
        claims = self.sealer.open(params.get("requestState"), principal=ctx.principal, method=request["method"],
                                  digest=tx.request_digest(request))
        rec, locked = self.pool.reclaim(claims.puc, claims.round)
        if rec is None:
            raise rules.unknown_state()
        self._cancel_timer(claims.puc)
        session = self.live.get(rec.sid)
        live = session.calls.get(rec.upstream_id) if session is not None else None
        if session is None or live is None or live.machine is None or session.state != "ready":
            if locked:
                self.pool.release(rec.sid)
                self._lease_freed(rec.sid)
            raise rules.lost_state()
        if not locked:
            await self._wait_to_resume(session, live)
        return await self._drive(session, live, request, ctx, emit,
                                 self.pool.resume_call(session.sid, live.machine, request, now_ms()))

    async def _wait_to_resume(self, session: LegacySession, live: LiveCall) -> None:
        """Running again, the call needs its own session's input lease back before its handler resumes:
        queue for it (``_lease_freed`` hands it over). Whatever stops the wait gives the call up, so the
        lease (if it was just handed over) goes back."""
        fut, token = self._waiter()
        self.leases.resume(session.sid, live.upstream_id, token)
        try:
            with anyio.fail_after(self.settings.request_timeout):
                await fut
        except BaseException as exc:
            fut.cancel()
            with anyio.CancelScope(shield=True):
                await self._give_up(session, live, "upstream session busy")
            if isinstance(exc, TimeoutError):
                raise rules.no_lease_in_time() from None
            raise
        finally:
            self._waiters.pop(token, None)
        if self._closed:
            raise UpstreamError("bridge is shutting down")

    # --- subscriptions/listen ------------------------------------------------------------------------

    async def _listen(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        rid = request["id"]
        session, _ = await self._session(request, ctx)
        try:
            await self._start(session)
            requested = request["params"].get("notifications")
            subscribed = [uri for uri in listen.requested_resource_uris(requested, session.server_caps) if await session.subscribe(uri)]
        finally:
            self.pool.unclaim(session.sid)
        listener = Listener(rid, ctx.principal, listen.acknowledged_filter(requested, session.server_caps, subscribed))
        self.listeners.add(listener)
        try:
            await emit(listen.ack_notification(rid, listener.acked))
            while True:
                note = await listener.queue.get()
                if note is None:
                    return jsonrpc.result_response(rid, listen.listen_closed_result(rid))
                event = listen.listen_event(note, rid, listener.acked)
                if event is not None:
                    await emit(event)
        finally:
            self.listeners.discard(listener)
            with anyio.CancelScope(shield=True):
                for uri in subscribed:
                    await session.unsubscribe(uri)

    def fanout(self, session: LegacySession, note: Message) -> None:
        for listener in self.listeners:
            if listener.principal == session.rec.principal or self.limits.share_child:
                listener.queue.put_nowait(note)

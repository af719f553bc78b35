"""Direction A shell: one initialized 2025 session (one stdio child, or one Mcp-Session-Id) and its calls.

Runs the handshake, sends frames, and hands every inbound frame to the call the pure router
(``mcp_eras.bridge.translate.legacy_server.pool.route_inbound``) names. Calls are ``LiveCall`` objects: a pure
``LegacyCall`` machine (None for the bridge's own requests) plus the queue its driver reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from collections.abc import Awaitable, Coroutine
from typing import Any, Protocol

import anyio

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.eras import MRTR_METHODS
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId
from mcp_eras.bridge.translate.legacy_server import frames as tx
from mcp_eras.bridge.translate.legacy_server import listen
from mcp_eras.bridge.translate.legacy_server import session as rules
from mcp_eras.bridge.translate.legacy_server.call import LegacyCall
from mcp_eras.bridge.translate.legacy_server.mrtr import refusal_frame
from mcp_eras.bridge.translate.legacy_server.pool import Limits, Pool, SessionRec, route_inbound
from mcp_eras.bridge.upstream.legacy_transport import LegacyTransport, SessionLost

log = logging.getLogger("mcp_bridge.legacy")

def now_ms() -> int:
    return int(time.time() * 1000)


class Inbox:
    """The frames of one call, in arrival order, for its one driver: ``put_nowait`` and ``await get()``
    (cancellable, e.g. by a deadline). What an ``asyncio.Queue`` without a size bound does for one reader,
    without its per-call event and waiter queues (one of these is made for every relayed call); unbounded
    as the stream feeding it: a call's frames are bounded by the session's reader and the call's deadline."""

    __slots__ = ("_items", "_waiter", "_loop")

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._items: deque[Message] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop = loop
        """The running loop when the maker knows it (each lookup is a getpid() on Python 3.11)."""

    def put_nowait(self, msg: Message) -> None:
        self._items.append(msg)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Message:
        while not self._items:
            waiter = self._waiter = (self._loop or asyncio.get_running_loop()).create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.popleft()

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items


class LiveCall:
    """One upstream request in flight: its machine (None for the bridge's own requests) and inbox."""

    __slots__ = ("upstream_id", "method", "machine", "queue", "loop")

    def __init__(self, upstream_id: int, method: str, machine: LegacyCall | None = None,
                 loop: asyncio.AbstractEventLoop | None = None) -> None:
        self.upstream_id = upstream_id
        self.method = method
        self.machine = machine
        self.loop = loop
        self.queue = Inbox(loop)

    @property
    def logs(self) -> bool | None:
        """Whether the client opted into logs; None for the bridge's own requests."""
        return None if self.machine is None else self.machine.log_level is not None


class SessionOwner(Protocol):
    """What a session needs of the upstream that owns it (``legacy.LegacyUpstream``): its settings, pool and limits,
    and where lost sessions, closed calls, unsolicited notifications and background work go."""

    settings: Settings
    name: str
    pool: Pool
    limits: Limits
    restarts: int

    def fanout(self, session: LegacySession, note: Message) -> None: ...

    def session_lost(self, session: LegacySession) -> None: ...

    def call_closed(self, session: LegacySession, upstream_id: int) -> None: ...

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...


class LegacySession:
    strays = 0
    """Responses that answered no request in flight (wrong or stale ids), per session (set on the instance)."""

    def __init__(self, owner: SessionOwner, transport: LegacyTransport, rec: SessionRec) -> None:
        self.owner = owner
        self.transport = transport
        self.rec = rec
        self.sid = rec.sid
        self.state = "new"
        self.init_result: Message = {}
        self.server_caps: dict[str, Any] = {}
        self.server_info: dict[str, Any] | None = None
        self.version: str | None = None
        self.calls: dict[int, LiveCall] = {}
        self.log_level_set = False
        self.inits = 0
        self._init_failures = 0
        self._init_error: UpstreamError | None = None
        """The last failed handshake: the callers that waited on it get it too (one failure, answered to all at once)."""
        self._ids = itertools.count(1)
        self._lock = asyncio.Lock()
        self._held_timer: asyncio.TimerHandle | None = None
        try:
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None
        """The loop the session was opened on and serves its calls on (each lookup of the running loop is a getpid()
        on Python 3.11: this saves one per call)."""
        transport.bind(self._deliver, self._on_lost, self.take_response)

    # --- lifecycle ---------------------------------------------------------------------------------

    async def ensure_ready(self) -> None:
        """Initialize the session unless it is ready. Callers that come while a handshake runs wait for it; when it
        fails they all get its error at once (each starting a handshake of its own would answer them one by one, a
        handshake's time apart); a caller that comes after a failure starts a new one."""
        if self.state == "ready":
            return
        failures = self._init_failures
        async with self._lock:
            if self.state == "ready":
                return
            if self._init_failures != failures and self._init_error is not None:
                raise UpstreamError(str(self._init_error))
            was_ready_before = self.inits > 0
            try:
                await self._initialize()
            except UpstreamError as exc:
                self._init_error = exc
                self._init_failures += 1
                raise
            if was_ready_before:
                await self._resync()

    async def _initialize(self) -> None:
        # 2025-11-25 basic/lifecycle.mdx §Initialization: initialize, then notifications/initialized.
        settings = self.owner.settings
        if self.state == "lost":
            self.state = "new"  # a new handshake: a loss during it is reported to it (``_on_lost``)
        await self.transport.open()
        self.log_level_set = False
        params = rules.initialize_request_params(self.rec.caps, self.rec.client_info, settings.bridge_info())
        result = await self.roundtrip("initialize", params, settings.connect_timeout * rules.BRIDGE_TIMEOUT_FACTOR)
        accepted = tx.accepted_initialize(result)
        if accepted is None:
            raise UpstreamError(rules.unsupported_version(result))
        version, self.server_caps, self.server_info = accepted
        self.version = version
        self.init_result = result
        self.transport.initialized(version)
        await self.transport.send(jsonrpc.notification("notifications/initialized"))
        if rules.settles_start(self.rec.caps):
            # What the server asks at once is held (``_hold``) before the first call begins (``LegacyCall.settle_first``).
            with contextlib.suppress(UpstreamError):
                await self.roundtrip("ping", None, rules.SETTLE_TIMEOUT_S)
        self.state = "ready"
        self.inits += 1
        log.info("upstream %s: session initialized (%s, %s)", self.owner.name, version, self.transport.kind)

    async def _resync(self) -> None:
        """After a re-initialize: restore resource subscriptions and tell listeners events may be lost."""
        subscribed = list(self.rec.subs)
        for uri in subscribed:
            with contextlib.suppress(UpstreamError):
                await self.roundtrip("resources/subscribe", {"uri": uri})
        for note in listen.resync_notes(subscribed):
            self.owner.fanout(self, note)

    async def _on_lost(self, why: str) -> None:
        if self.state == "lost":
            return
        self.state = "lost"
        log.warning("upstream %s: session lost: %s", self.owner.name, why)
        self.owner.restarts += 1
        for call in list(self.calls.values()):
            call.queue.put_nowait(rules.lost_call_frame(call.upstream_id, why))
        self.calls.clear()
        self._disarm_held()
        self.owner.session_lost(self)

    async def close(self) -> None:
        self.state = "closed"
        self._disarm_held()
        await self.transport.close()

    # --- calls ---------------------------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    def open_call(self, call: LiveCall) -> LiveCall:
        self.calls[call.upstream_id] = call
        return call

    def close_call(self, call: LiveCall, abandon: bool = False) -> None:
        """Forget ``call``. ``abandon`` also drops its response stream (only for calls given up on:
        a stream that already carried its response is left to finish so its connection is reused)."""
        self.calls.pop(call.upstream_id, None)
        if abandon:
            self.transport.abandon(call.upstream_id)
        self.owner.call_closed(self, call.upstream_id)

    def send(self, msg: Message) -> Awaitable[None]:
        """The transport's send itself (one coroutine less per frame); a lost session raises here."""
        if self.state not in ("ready", "new"):
            raise SessionLost("upstream session lost")
        return self.transport.send(msg)

    async def send_quietly(self, msg: Message) -> None:
        """Answers and notices whose loss changes nothing (the session is gone or going)."""
        with contextlib.suppress(UpstreamError):
            await self.transport.send(msg)

    async def roundtrip(self, method: str, params: Message | None, timeout: float | None = None) -> Message:
        """A request the bridge itself makes (initialize, setLevel, subscribe). Returns the result."""
        call = self.open_call(LiveCall(self.next_id(), method))
        self.owner.pool.open_call(self.sid, call.upstream_id)
        try:
            await self.transport.send(jsonrpc.request(call.upstream_id, method, params))
            with anyio.fail_after(timeout or self.owner.settings.request_timeout):
                while not jsonrpc.is_response(msg := await call.queue.get()):
                    if jsonrpc.is_request(msg):
                        await self.send_quietly(refusal_frame(msg["id"], msg["method"]))
        except TimeoutError:
            raise UpstreamError(f"upstream did not answer {method} in time") from None
        finally:
            self.close_call(call)
        outcome = rules.own_request_outcome(method, msg)
        if isinstance(outcome, str):
            raise UpstreamError(outcome)
        return outcome

    async def ensure_log_level(self) -> None:
        # 2026 requests opt into logs per request (logLevel); a 2025 server needs one setLevel per
        # session (2025-11-25 server/utilities/logging.mdx §Setting Log Level): the bridge filters.
        if not rules.wants_log_level(self.log_level_set, self.server_caps):
            return
        self.log_level_set = True
        try:
            await self.roundtrip("logging/setLevel", {"level": "debug"})
        except UpstreamError as exc:
            log.info("upstream %s: logging/setLevel failed: %s", self.owner.name, exc)

    async def subscribe(self, uri: str) -> bool:
        if not self.owner.pool.subscribe(self.sid, uri):
            return True
        try:
            await self.roundtrip("resources/subscribe", {"uri": uri})
        except UpstreamError as exc:
            self.owner.pool.unsubscribe(self.sid, uri)
            log.info("upstream %s: resources/subscribe %s failed: %s", self.owner.name, uri, exc)
            return False
        return True

    async def unsubscribe(self, uri: str) -> None:
        if self.owner.pool.unsubscribe(self.sid, uri) and self.state == "ready":
            with contextlib.suppress(UpstreamError):
                await self.roundtrip("resources/unsubscribe", {"uri": uri}, 10)

    # --- inbound -------------------------------------------------------------------------------------

    def take_response(self, msg: Message) -> bool:
        """A response goes to the call it answers, or nowhere: ``route_inbound``'s first rule, without the
        per-call views its other rules need (a response is most of what a session receives)."""
        rid = msg.get("id")
        call = self.calls.get(rid) if type(rid) is int else None
        if call is not None:
            call.queue.put_nowait(msg)
        else:
            self.strays += 1
        return True

    def faults(self) -> str:
        """What the upstream did wrong on this session so far (for a caller that times out), or ""."""
        said = [f for f in (self.transport.faults(), f"{self.strays} answers to no request in flight dropped" if self.strays else "") if f]
        return "; ".join(said)

    async def _deliver(self, msg: Message, related: RequestId | None) -> None:
        if "method" not in msg:
            self.take_response(msg)
            return
        # A parked call's handler waits for its answers and asks nothing new: it carries no new request.
        askable = [cid for cid, c in self.calls.items()
                   if c.method in MRTR_METHODS and c.machine is not None and c.machine.phase != "parked"]
        kind, target = route_inbound(msg, related, {cid: c.logs for cid, c in self.calls.items()}, self.rec.lease, askable)
        if msg.get("method") == "notifications/cancelled" and isinstance(msg.get("params"), dict):
            self.owner.pool.withdraw_held(self.sid, msg["params"].get("requestId"))
        if kind == "call":
            # A call leaves ``calls`` when its driver closes it (a parked call answered early stays findable).
            self.calls[target].queue.put_nowait(msg)
        elif kind == "calls":
            for cid in target:
                self.calls[cid].queue.put_nowait(msg)
        elif kind == "fanout":
            self.owner.fanout(self, msg)
        elif kind == "pong":
            await self.send_quietly(jsonrpc.result_response(msg["id"], {}))
        elif kind == "unknown":
            await self.send_quietly(rules.unknown_method_frame(msg["id"], msg["method"]))
        elif kind == "hold":
            await self._hold(msg)

    # --- session-level server requests ---------------------------------------------------------------

    async def _hold(self, msg: Message) -> None:
        """Keep a request no call can carry for the session's next input-capable call (the pool decides;
        this runs its deadline). Before the first call nobody can be asked: see the README, Roots."""
        owner = self.owner
        wait_ms = rules.held_wait_ms(owner.settings.request_timeout)
        in_flight = sum(1 for call in self.calls.values() if call.machine is not None)
        answer = owner.pool.hold(self.sid, msg, now_ms=now_ms(), wait_ms=wait_ms, limits=owner.limits, calls_in_flight=in_flight)
        if answer is not None:
            why = answer["error"]["message"] if "error" in answer else "declined"
            log.info("upstream %s: %s answered for the client: %s", owner.name, msg["method"], why)
            await self.send_quietly(answer)
            return
        log.info("upstream %s: %s held for the session's next call", owner.name, msg["method"])
        if self._held_timer is None:
            self._held_timer = asyncio.get_running_loop().call_later(wait_ms / 1000, self._expire_held)

    def _expire_held(self) -> None:
        self._held_timer = None
        frames, next_at = self.owner.pool.expire_held(self.sid, now_ms())
        for frame in frames:
            log.info("upstream %s: no call arrived in time for a held server request", self.owner.name)
            self.owner.spawn(self.send_quietly(frame))
        if next_at is not None:
            self._held_timer = asyncio.get_running_loop().call_later(max(0.0, (next_at - now_ms()) / 1000), self._expire_held)

    def _disarm_held(self) -> None:
        if self._held_timer is not None:
            self._held_timer.cancel()
            self._held_timer = None

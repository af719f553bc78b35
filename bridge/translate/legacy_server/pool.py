"""Direction A, pure: the pool of 2025 upstream sessions as data — who gets which session, input leases,
parked calls, resource-subscription counts — and the routing of each inbound frame of a session.

A 2025 session fixes the client's capabilities and clientInfo at ``initialize`` (2025-11-25
basic/lifecycle.mdx §Initialization), while a 2026 client sends them on every request (2026-07-28
basic/index.mdx §Statelessness). So sessions are pooled by identity: (principal, legacy capabilities,
client info). A legacy server's requests to its client carry no reference to the call they serve on
stdio (and on a GET stream), so a session runs at most one *input-capable* call at a time: the holder
of its lease. A parked call (waiting for the client's retry) does not hold the lease: its handler is
blocked on the answers and cannot ask anything new until it gets them.

``Pool`` is plain data (``to_json``/``from_json``); ids and times come in as arguments.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

from mcp_eras.bridge.translate import errors
from mcp_eras.bridge.translate.eras import INPUT_REQUEST_METHODS, MRTR_METHODS, request_meta
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.legacy_server import frames as tx
from mcp_eras.bridge.translate.legacy_server.call import LegacyCall
from mcp_eras.bridge.translate.legacy_server.listen import LIST_CHANGED
from mcp_eras.bridge.translate.legacy_server.mrtr import (
    has_capability,
    refusal_frame,
    required_capability,
    unasked_frame,
    undeclared_frame,
)
from mcp_eras.bridge.translate.mrtr_steps import Step

# ---------------------------------------------------------------------------------------------
# Limits and the named errors at each of them
# ---------------------------------------------------------------------------------------------

LIMIT_ERROR = errors.LIMIT_REACHED
"""The JSON-RPC code of every limit below (named in ``data.limit``; HTTP 503 on the 2026 front)."""


@dataclass(frozen=True)
class Limits:
    per_identity_sessions: int = 8
    total_sessions: int = 64
    """Also the number of stdio children of a stdio upstream (one child per session)."""
    parked_per_identity: int = 64
    parked_total: int = 1024
    idle_ms: int = 600_000
    """A session without calls, leases, parked calls or subscriptions this long is closed (the most recently used one;
    the others after ``departed_ms``)."""
    departed_ms: int = 30_000
    """An idle session that is not the most recently used one (its identity's callers have left, or it was a spare
    for concurrent calls) is closed this long after its last use: one stdio child stays warm, not one per client."""
    held_per_session: int = 16
    """Session-level server requests waiting for a client request to carry them (more are answered
    with an error at once)."""
    share_child: bool = False
    """Every caller shares one session (for stdio: one child), whatever its identity (``shared_identity``)."""


@dataclass(frozen=True)
class Refuse:
    """The caller gets a JSON-RPC error naming ``limit`` (HTTP ``status`` where one applies)."""

    limit: str
    message: str
    status: int = 503


@dataclass(slots=True)  # (a value, but not frozen: see legacy_call's actions)
class Grant:
    sid: str
    new: bool = False
    exclusive: bool = False
    evict: tuple[str, ...] = ()
    """Idle sessions to close before the new one opens (it takes their place under the total cap)."""
    retire: tuple[str, ...] = ()
    """Sessions no longer needed (idle too long, or the provisional one): close them in the background."""


@dataclass(frozen=True)
class Wait:
    """Every session of the identity runs an input-capable call: wait for a lease (with a deadline)."""


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------

@dataclass
class SessionRec:
    sid: str
    key: str
    principal: str | None
    caps: dict[str, Any] = field(default_factory=dict)
    """The 2026 client capabilities this session was initialized for."""
    client_info: dict[str, Any] | None = None
    provisional: bool = False
    lease: int | None = None
    """Upstream id of the running input-capable call holding the input lease (0: granted, not yet sent)."""
    calls: list[int] = field(default_factory=list)
    subs: dict[str, int] = field(default_factory=dict)
    last_used_ms: int = 0
    held: list[list[Any]] = field(default_factory=list)
    """Session-level server->client requests waiting for the session's next input-capable call:
    [frame, deadline_ms] in arrival order (see ``Pool.hold``)."""
    claims: int = 0
    """Callers granted this session that have not begun their call yet (it is starting or being readied for them):
    it is not idle, so nobody evicts it under them."""

    def idle(self) -> bool:
        return not self.calls and self.lease is None and not self.subs and not self.claims


@dataclass
class ParkedRec:
    puc: str
    sid: str
    upstream_id: int
    principal: str | None
    digest: str
    method: str
    round: int
    expires_ms: int


@dataclass
class Pool:
    sessions: dict[str, SessionRec] = field(default_factory=dict)
    parked: dict[str, ParkedRec] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)
    """How many callers each limit turned away (metrics)."""
    reap_at_ms: int = 0
    """When ``acquire`` next looks for idle sessions to retire: a tenth of the idle limit after it last looked, so a
    session outlives its idle limit by at most a tenth of it and a call does not scan every session."""

    # --- sessions --------------------------------------------------------------------------------

    def __post_init__(self) -> None:
        self._groups: dict[str, list[str]] = {}
        """Session ids by identity key, in opening order (not state: made from ``sessions``, kept with it by
        ``_forget``; ids dropped from ``sessions`` directly are pruned when read). ``group`` is one lookup, not a scan
        of every session, on every call."""
        for s in self.sessions.values():
            self._groups.setdefault(s.key, []).append(s.sid)

    def _forget(self, sid: str) -> None:
        """Session ``sid`` is gone: from ``sessions`` and from its identity's index entry (an identity that never
        comes back leaves nothing behind)."""
        rec = self.sessions.pop(sid, None)
        sids = self._groups.get(rec.key) if rec is not None else None
        if sids is not None and sid in sids:
            sids.remove(sid)
            if not sids:
                del self._groups[rec.key]  # type: ignore[union-attr]

    def group(self, key: str) -> list[SessionRec]:
        sids = self._groups.get(key)
        if not sids:
            return []
        sessions = self.sessions
        found = [sessions[sid] for sid in sids if sid in sessions and sessions[sid].key == key]
        if len(found) != len(sids):
            if found:
                self._groups[key] = [s.sid for s in found]
            else:
                del self._groups[key]
        return found

    def identity_sessions(self, request: Message, principal: str | None, shared: bool = False) -> list[str]:
        """The sessions opened for the identity ``request`` carries: a 2025 client's roots change concerns them
        (and no session of another principal, capabilities or clientInfo; ``shared``: the one shared session)."""
        if shared:
            return [s.sid for s in self.group(identity_key(*shared_identity()))]
        return [s.sid for s in self.group(identity_key(principal, tx.client_capabilities(request), tx.client_info(request)))]

    def acquire(self, request: Message | None, principal: str | None, new_sid: str, *, limits: Limits,
                now_ms: int = 0, meta: dict[str, Any] | None = None) -> Grant | Wait | Refuse:
        """A session for ``request`` (None: the bridge's own provisional session). Input-capable calls
        (a method that may ask the client, from a client that declared something it can be asked for)
        get the session's input lease. ``meta``: the request's ``_meta`` when already looked up."""
        if meta is None:
            meta = (request_meta(request) or {}) if request is not None else {}
        caps, info = tx.capabilities_in(meta), tx.info_in(meta)
        exclusive = request is not None and needs_lease(request.get("method"), caps)
        if limits.share_child:
            principal, caps, info = shared_identity()
        key = identity_key(principal, caps, info)
        reaped = self._reap_idle(now_ms, limits)
        group = self.group(key)
        if exclusive:
            for s in group:
                if s.lease is None:
                    s.lease, s.last_used_ms = 0, now_ms
                    s.claims += 1
                    return Grant(s.sid, exclusive=True, retire=reaped)
            if len(group) >= limits.per_identity_sessions:
                return Wait()
        elif group:
            group[0].last_used_ms = now_ms
            group[0].claims += 1
            return Grant(group[0].sid, retire=reaped)
        evict: tuple[str, ...] = ()
        if len(self.sessions) >= limits.total_sessions:
            idle = sorted((s for s in self.sessions.values() if s.idle() and s.sid not in self._parked_sids()),
                          key=lambda s: s.last_used_ms)
            if not idle:
                return self._refuse("upstream_sessions", f"Upstream session limit reached ({limits.total_sessions})")
            evict = (idle[0].sid,)
            self._forget(idle[0].sid)
        retired = tuple(s.sid for s in self.sessions.values() if s.provisional and s.key != key and s.idle())
        for sid in retired:
            self._forget(sid)
        self.sessions[new_sid] = SessionRec(new_sid, key, principal, caps, info, provisional=request is None and principal is None,
                                            lease=0 if exclusive else None, last_used_ms=now_ms, claims=1)
        self._groups.setdefault(key, []).append(new_sid)
        return Grant(new_sid, new=True, exclusive=exclusive, evict=evict, retire=reaped + retired)

    def free_leases(self, key: str, limits: Limits) -> int:
        """How many input leases of identity ``key`` a waiter could take now: sessions without a lease
        holder, plus sessions the identity may still open (the waiters woken when a lease frees)."""
        group = self.group(key)
        return sum(1 for s in group if s.lease is None) + max(0, limits.per_identity_sessions - len(group))

    def _reap_idle(self, now_ms: int, limits: Limits) -> tuple[str, ...]:
        period = min(limits.idle_ms, limits.departed_ms) // 10
        if 0 <= self.reap_at_ms - now_ms <= period:  # (a clock set back looks at once)
            return ()
        self.reap_at_ms = now_ms + period
        return self.reap(now_ms, limits)

    def _reapable(self, limits: Limits) -> list[tuple[SessionRec, int]]:
        """The sessions that may be closed when idle long enough, each with how long: the most recently used session
        ``idle_ms``, every other ``departed_ms`` (never a provisional one, one with a call, lease, claim, subscription
        or parked call)."""
        if not self.sessions:
            return []
        newest = max(reversed(self.sessions.values()), key=lambda s: s.last_used_ms)  # (a tie: the later opened)
        parked = self._parked_sids() if self.parked else set()
        departed = min(limits.departed_ms, limits.idle_ms)
        return [(s, limits.idle_ms if s is newest else departed) for s in self.sessions.values()
                if not s.provisional and s.idle() and s.sid not in parked]

    def reap(self, now_ms: int, limits: Limits) -> tuple[str, ...]:
        """Forget the sessions idle past their limit (``_reapable``) and return them (the shell closes them)."""
        gone = tuple(s.sid for s, after in self._reapable(limits) if now_ms - s.last_used_ms > after)
        for sid in gone:
            self._forget(sid)
        return gone

    def next_reap_ms(self, limits: Limits) -> int | None:
        """When ``reap`` next finds a session to close if nothing changes (None: none may be closed)."""
        return min((s.last_used_ms + after + 1 for s, after in self._reapable(limits)), default=None)

    def begin_call(self, sid: str, request: Message, upstream_id: int, *, exclusive: bool,
                   server_info: dict[str, Any] | None, ttl_ms: int, cache_scope: str,
                   now_ms: int = 0, meta: dict[str, Any] | None = None, settle_ms: int = 0) -> tuple[LegacyCall, list[Step]]:
        """Start ``request`` on session ``sid`` as upstream request ``upstream_id``. An input-capable
        call also takes the session-level requests held for it (``hold``): they ask its caller first, and the call
        goes upstream ``settle_ms`` after their answers (``LegacyCall.settle_first``). ``meta``: the
        request's ``_meta`` when already looked up."""
        s = self.sessions[sid]
        s.calls.append(upstream_id)
        s.claims = max(0, s.claims - 1)
        call, actions = LegacyCall.begin(request, upstream_id, server_info=server_info, ttl_ms=ttl_ms, cache_scope=cache_scope,
                                         meta=meta)
        if exclusive:
            s.lease = upstream_id
            held, s.held = s.held, []
            actions = call.settle_first(actions, [frame for frame, _deadline in held], now_ms, settle_ms)
        return call, actions

    def resume_call(self, sid: str, call: LegacyCall, request: Message, now_ms: int) -> list[Step]:
        """A parked call runs again (its lease is back): the client's answers go upstream, and when the
        call is running again it takes the session-level requests held meanwhile."""
        actions = call.resume(request, now_ms)
        s = self.sessions.get(sid)
        if s is not None and call.phase == "running":
            actions += self._hand_held(s, call, now_ms)
        return actions

    # --- session-level server requests (no call to attribute them to) ------------------------------

    def hold(self, sid: str, msg: Message, *, now_ms: int, wait_ms: int, limits: Limits, calls_in_flight: int = 0) -> Message | None:
        """A server->client request of session ``sid`` that no call in flight can carry (a 2025 server
        may ask ``roots/list`` right after ``notifications/initialized``, 2025-11-25 client/roots.mdx
        §Listing Roots). The session serves one identity: every caller of it declared the same
        capabilities (``identity_key``), so it is held for the session's next input-capable call, whose
        caller is asked. Returns the answer to send now instead: the client did not declare the
        capability (answered as such a client would), or too many are held already. A shared session
        (``share_child``) serves callers of every identity: a request asked while client calls are in flight that none
        of them can be named for is declined (the 2025 client's "no"), never carried to another caller."""
        s = self.sessions.get(sid)
        method = msg.get("method", "")
        if limits.share_child and calls_in_flight:
            self.refused["unattributed"] = self.refused.get("unattributed", 0) + 1
            return refusal_frame(msg["id"], method)
        need = required_capability(method, msg.get("params"))
        if s is None or need is None or not has_capability(s.caps, need):
            return undeclared_frame(msg["id"], method)
        if len(s.held) >= limits.held_per_session:
            self.refused["held_per_session"] = self.refused.get("held_per_session", 0) + 1
            return unasked_frame(msg["id"], method)
        s.held.append([msg, now_ms + wait_ms])
        return None

    def expire_held(self, sid: str, now_ms: int) -> tuple[list[Message], int | None]:
        """Held requests past their deadline, answered with an error; and the next deadline (or None)."""
        s = self.sessions.get(sid)
        if s is None:
            return [], None
        due = [frame for frame, at in s.held if at <= now_ms]
        s.held = [h for h in s.held if h[1] > now_ms]
        return [unasked_frame(f["id"], f.get("method", "")) for f in due], min((at for _f, at in s.held), default=None)

    def withdraw_held(self, sid: str, server_id: Any) -> None:
        """The server cancelled a request it asked (2025-11-25 basic/utilities/cancellation.mdx)."""
        s = self.sessions.get(sid)
        if s is not None:
            s.held = [h for h in s.held if h[0].get("id") != server_id]

    @staticmethod
    def _hand_held(s: SessionRec, call: LegacyCall, now_ms: int) -> list[Step]:
        held, s.held = s.held, []
        actions: list[Step] = []
        for frame, _deadline in held:
            actions += call.on_upstream(frame, now_ms)
        return actions

    def unclaim(self, sid: str) -> None:
        """A granted caller is done without beginning a call (discovery, a failure before the call)."""
        s = self.sessions.get(sid)
        if s is not None:
            s.claims = max(0, s.claims - 1)

    def release(self, sid: str) -> None:
        s = self.sessions.get(sid)
        if s is not None:
            s.lease = None

    def relock(self, sid: str, upstream_id: int) -> bool:
        """A parked call resumes: it needs its own session's lease back (False: someone else runs)."""
        s = self.sessions.get(sid)
        if s is None or s.lease not in (None, upstream_id):
            return False
        s.lease = upstream_id
        return True

    def open_call(self, sid: str, upstream_id: int) -> None:
        """A request of the bridge's own (initialize, setLevel, subscribe) on session ``sid``."""
        self.sessions[sid].calls.append(upstream_id)

    def close_call(self, sid: str, upstream_id: int, now_ms: int | None = None) -> None:
        s = self.sessions.get(sid)
        if s is None:
            return
        if now_ms is not None:
            s.last_used_ms = now_ms
        if upstream_id in s.calls:
            s.calls.remove(upstream_id)
        if s.lease == upstream_id:
            s.lease = None

    def lost(self, sid: str) -> list[ParkedRec]:
        """The session died: its calls are gone, and so are its parked calls (returned)."""
        s = self.sessions.get(sid)
        if s is not None:
            s.calls.clear()
            s.lease = None
            s.held.clear()
        return [self.parked.pop(p.puc) for p in list(self.parked.values()) if p.sid == sid]

    def drop(self, sid: str) -> None:
        self._forget(sid)

    # --- parked calls ------------------------------------------------------------------------------

    def park(self, sid: str, call: LegacyCall, request: Message, puc: str, principal: str | None, *, expires_ms: int,
             limits: Limits) -> tuple[ParkedRec, list[ParkedRec]]:
        """Park ``call`` until the client's retry; returns its record and the oldest parked calls released
        to stay within the caps (each is answered upstream as on expiry). The parked handler waits for
        its answers and cannot ask anything new, so the session's input lease is freed."""
        rec = ParkedRec(puc, sid, call.upstream_id, principal, tx.request_digest(request), request["method"],
                        call.rounds.round, expires_ms)
        self.parked[puc] = rec
        s = self.sessions.get(sid)
        if s is not None and s.lease == call.upstream_id and call.deferred is None:
            # (a call not yet forwarded keeps it: the session is not settled until its client's answers are in)
            s.lease = None
        released = []
        for limit, cap, owner in (("parked_per_identity", limits.parked_per_identity, principal),
                                  ("parked_total", limits.parked_total, None)):
            mine = [p for p in self.parked.values() if limit == "parked_total" or p.principal == owner]
            for old in sorted(mine, key=lambda p: p.expires_ms)[: max(0, len(mine) - cap)]:
                released.append(self.parked.pop(old.puc))
                self.refused[limit] = self.refused.get(limit, 0) + 1
        return rec, released

    def reclaim(self, puc: str, round: int) -> tuple[ParkedRec | None, bool]:
        """The client retried a parked call: take its record (single use; None when unknown, used, or
        of another round) and try to take its session's input lease back (False: wait for ``relock``)."""
        rec = self.parked.get(puc)
        if rec is None or rec.round != round:
            return None, False
        del self.parked[puc]
        return rec, self.relock(rec.sid, rec.upstream_id)

    def take(self, puc: str) -> ParkedRec | None:
        return self.parked.pop(puc, None)

    def expired(self, now_ms: int) -> list[ParkedRec]:
        return [self.parked.pop(p.puc) for p in list(self.parked.values()) if p.expires_ms <= now_ms]

    def _parked_sids(self) -> set[str]:
        return {p.sid for p in self.parked.values()}

    # --- resource subscriptions (refcounted per session) -----------------------------------------

    def subscribe(self, sid: str, uri: str) -> bool:
        """Count one more listener of ``uri``; True when the session must send ``resources/subscribe``."""
        subs = self.sessions[sid].subs
        subs[uri] = subs.get(uri, 0) + 1
        return subs[uri] == 1

    def unsubscribe(self, sid: str, uri: str) -> bool:
        """True when the last listener left and ``resources/unsubscribe`` is due."""
        s = self.sessions.get(sid)
        if s is None or uri not in s.subs:
            return False
        s.subs[uri] -= 1
        if s.subs[uri] > 0:
            return False
        del s.subs[uri]
        return True

    def _refuse(self, limit: str, message: str, status: int = 503) -> Refuse:
        self.refused[limit] = self.refused.get(limit, 0) + 1
        return Refuse(limit, message, status)

    # --- plain data ----------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pool:
        return cls({k: SessionRec(**v) for k, v in data["sessions"].items()},
                   {k: ParkedRec(**v) for k, v in data["parked"].items()}, dict(data["refused"]), int(data.get("reap_at_ms", 0)))


INPUT_CAPABILITIES = ("elicitation", "sampling", "roots")
"""2026-07-28 basic/patterns/mrtr.mdx §Server Requirements (Basic Workflow): only what the client
declared may be asked; a client that declared none of these can never be asked anything."""


def needs_lease(method: Any, caps: dict[str, Any]) -> bool:
    """An input-capable call: a method that may ask the client, from a client that declared something
    it can be asked for (it runs alone on its session: it holds the input lease)."""
    return method in MRTR_METHODS and not caps.keys().isdisjoint(INPUT_CAPABILITIES)


def lease_key(request: Message, principal: str | None, shared: bool = False) -> str | None:
    """The identity whose input lease ``request`` needs, or None when it needs none (it never waits)."""
    caps = tx.client_capabilities(request)
    if not needs_lease(request.get("method"), caps):
        return None
    return identity_key(*shared_identity()) if shared else identity_key(principal, caps, tx.client_info(request))


SHARED_CAPABILITIES: dict[str, Any] = {"roots": {"listChanged": True}, "elicitation": {"form": {}, "url": {}}, "sampling": {}}
"""What a shared session declares upstream: everything a caller may be asked for. Each request the server asks is
carried by the call it belongs to, whose own client's declarations decide (-32021 when it lacks the capability,
2026-07-28 basic/patterns/mrtr.mdx §Server Requirements)."""


def shared_identity() -> tuple[None, dict[str, Any], None]:
    """The identity of the one session every caller shares (``Limits.share_child``): no principal, the shared
    capabilities, the bridge's own clientInfo."""
    return None, SHARED_CAPABILITIES, None


def identity_key(principal: str | None, caps: dict[str, Any] | None, info: dict[str, Any] | None) -> str:
    """Sessions differ exactly when what ``initialize`` fixes differs (2025-11-25 basic/lifecycle.mdx §Initialization)."""
    info_key = f"{info.get('name')}/{info.get('version')}" if info else ""
    return orjson.dumps([principal, tx.capabilities_key(caps), info_key]).decode()


# ---------------------------------------------------------------------------------------------
# Inbound frames of one session: which call (if any) each belongs to
# ---------------------------------------------------------------------------------------------

INBOUND_NOTIFICATIONS = {
    "notifications/progress": "by_token",  # 2025-11-25 basic/utilities/progress.mdx §Progress Flow (token = our id)
    "notifications/message": "by_log",  # 2025-11-25 server/utilities/logging.mdx §Log Message Notifications
    "notifications/resources/updated": "fanout",  # 2025-11-25 server/resources.mdx §Subscriptions
    "notifications/cancelled": "every_call",  # 2025-11-25 basic/utilities/cancellation.mdx (a withdrawn server request)
    **{method: "fanout" for method in LIST_CHANGED},  # 2025-11-25 server/{tools,prompts,resources}.mdx §List Changed Notification
}


def route_inbound(msg: dict[str, Any], related: Any, calls: dict[int, bool | None], lease: int | None,
                  askable: Any = None) -> tuple[str, Any]:
    """Where one inbound frame of a session goes.

    ``calls``: the session's requests in flight (upstream id -> whether the call opted into logs; None
    for the bridge's own requests, which ask nobody); ``lease``: the input lease holder; ``askable``:
    the calls whose method may answer ``input_required`` (None: every client call). ``related``: the
    upstream request whose response stream carried the frame, when the wire says (Streamable HTTP);
    None on stdio and the GET stream. Returns one of
    ``("call", id)``, ``("calls", [ids])``, ``("fanout", None)``, ``("pong", None)``,
    ``("hold", None)`` (a session-level request: ``Pool.hold``), ``("unknown", None)`` (-32601), ``("drop", None)``.
    """
    method = msg.get("method")
    if method is None:
        rid = msg.get("id")
        return ("call", rid) if type(rid) is int and rid in calls else ("drop", None)  # true is no id: basic/index.mdx §Requests
    if "id" in msg:
        if method == "ping":  # 2025-11-25 basic/utilities/ping.mdx §Behavior Requirements
            return "pong", None
        if method not in INPUT_REQUEST_METHODS:
            return "unknown", None
        if isinstance(related, int) and related in calls:
            return "call", related
        # No wire attribution: unambiguous through the session's input lease, or when only one call that
        # could carry it is in flight (then a client that cannot be asked gets -32021 rather than a silent
        # "no"). Otherwise it is the session's, not a call's: held for the next input-capable call.
        if lease and lease in calls:
            return "call", lease
        client_calls = [cid for cid, logs in calls.items() if logs is not None and (askable is None or cid in askable)]
        return ("call", client_calls[0]) if len(client_calls) == 1 else ("hold", None)
    rule = INBOUND_NOTIFICATIONS.get(method)
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    if rule == "by_token":
        token = params.get("progressToken")
        return ("call", token) if isinstance(token, int) and token in calls else ("drop", None)
    if rule == "by_log":
        if isinstance(related, int) and related in calls:
            return "call", related
        opted = [cid for cid, logs in calls.items() if logs is True]
        return ("call", opted[0]) if len(opted) == 1 else ("drop", None)
    if rule == "every_call":
        return "calls", list(calls)
    if rule == "fanout":
        return "fanout", None
    return "drop", None  # notifications/elicitation/complete and anything unknown: consumed

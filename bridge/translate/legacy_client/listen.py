"""Direction B, pure: the upstream ``subscriptions/listen`` behind 2025 sessions' unsolicited notifications.

A 2025 client learns of changes from notifications its session may receive at any time (2025-11-25
server/tools.mdx, prompts.mdx, resources.mdx §List Changed Notification; resources.mdx §Subscriptions). A 2026
server sends them only on a ``subscriptions/listen`` stream whose filter names what is wanted (2026-07-28
basic/patterns/subscriptions.mdx).

One listen is SHARED by every session with the same ``share_key``: the same credentials (principal) and the same
listen ``_meta`` (protocol version, client capabilities, client info). To the server such sessions are
indistinguishable callers -- a 2026 request carries all it knows of its caller in ``_meta`` and the transport's
credentials (2026-07-28 basic/index.mdx §General fields) -- and a filter is a plain union of kinds and URIs
(§Notification Filter), so one listen whose filter is the union of the members' filters serves them all. Each
notification is then fanned out to the members whose OWN filter asks for it: never to a session that did not ask,
never across principals (they never share a key).

``ListenState`` (one shared listen and its members) is plain data (``to_json``/``from_json``). Rules, each with
its section:

* a member's filter is the list_changed kinds its session was promised while it can receive them, plus its
  subscribed URIs (§Notification Filter); the listen asks for their union;
* the union grows (a member subscribes, a GET stream connects): a new listen replaces the old one; an explicit
  unsubscribe shrinks it the same way; a member that leaves (or stops streaming) keeps a listen that still covers
  the rest (delivery is filtered per member anyway) until the next replacement tightens it;
* a new listen counts once acknowledged, with the filter the server granted (§Acknowledgment); only then is
  the old one cancelled (§Cancellation), so no change falls between the two (make-before-break);
* during the overlap only the newest acknowledged listen's notifications are delivered (no duplicates:
  2025-11-25 basic/transports.mdx §Multiple Connections, each message once);
* notifications are told apart by ``subscriptionId`` (§Receiving Notifications) and lose it for 2025;
* a listen that ends while members rely on it is re-opened after a backoff (0.5 s doubling to 10 s); events may
  have been missed meanwhile, so each member is told every kind it relies on changed (list_changed) and every URI
  it subscribed was updated (§Graceful Closure: the stream may end at any time);
* how a listen ended matters (2026-07-28 schema ``SubscriptionsListenResult``, the erratum to §Graceful Closure): its
  completion result (``resultType: "complete"``, ``_meta`` naming the listen as ``subscriptionId``) is an orderly end;
  a stream closed without it, an error or a transport failure is an abrupt drop, reported as such. Either way the
  members still rely on a listen: it is re-opened as above, with the invalidations (the gap may have hidden changes);
* the last member leaves: the listen is cancelled;
* a server without ``subscriptions/listen`` (-32601) is remembered: later subscribes get -32601 at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate.eras import META_SUBSCRIPTION_ID
from mcp_eras.bridge.translate.jsonrpc import FrameError, Message
from mcp_eras.bridge.translate.legacy_client import frames as lf

BACKOFF_INITIAL = 0.5
BACKOFF_MAX = 10.0
RETIRED_MEMORY = 16

INVALIDATIONS = (
    ("toolsListChanged", "notifications/tools/list_changed"),
    ("promptsListChanged", "notifications/prompts/list_changed"),
    ("resourcesListChanged", "notifications/resources/list_changed"),
)
KIND_OF = {method: flag for flag, method in INVALIDATIONS}
UPDATED = "notifications/resources/updated"
URIS = "resourceSubscriptions"


def share_key(principal: str | None, identity: lf.SessionIdentity) -> str:
    """Sessions with equal keys share one upstream listen: same credentials, same listen ``_meta``."""
    meta = lf.listen_request(0, identity, {})["params"]["_meta"]
    return json.dumps([principal, meta], sort_keys=True, separators=(",", ":"))


def union(filters: Any) -> dict[str, Any]:
    """The smallest filter asking for everything any of ``filters`` asks for (§Notification Filter)."""
    out: dict[str, Any] = {}
    uris: set[str] = set()
    for filt in filters:
        for flag, _method in INVALIDATIONS:
            if filt.get(flag):
                out[flag] = True
        uris.update(u for u in filt.get(URIS) or [] if isinstance(u, str))
    if uris:
        out[URIS] = sorted(uris)
    return out


def covers(have: dict[str, Any], want: dict[str, Any]) -> bool:
    return (all(have.get(flag) for flag, _m in INVALIDATIONS if want.get(flag))
            and set(want.get(URIS) or []) <= set(have.get(URIS) or []))


@dataclass
class ListenState:
    prefix: str = "listen"
    """Listen ids are ``<prefix>-<n>``: unique per front, whatever the upstream does with ids."""
    members: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Member (session) token -> the filter that session needs now (never empty)."""
    next_id: int = 1
    current: str | None = None
    """The acknowledged listen the members rely on."""
    current_filter: dict[str, Any] = field(default_factory=dict)
    acked: dict[str, Any] = field(default_factory=dict)
    """The filter the current listen's acknowledgement granted."""
    newest_acked: str | None = None
    retired: list[str] = field(default_factory=list)
    unsupported: bool = False
    closed: bool = False
    lost: bool = False
    """The listen the members relied on ended by itself: the next one to open must invalidate."""
    backoff: float = BACKOFF_INITIAL
    completed: int = 0
    """Listens the server ended with their completion result (orderly)."""
    dropped: int = 0
    """Listens that ended without it (abrupt drops)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ListenState:
        return cls(**data)


@dataclass(frozen=True)
class Keep:
    """Nothing to do: the current listen already serves the members; ``acked`` is what it granted."""

    acked: dict[str, Any]


@dataclass(frozen=True)
class Open:
    """Open listen ``listen_id`` with ``filter``; report ``opened`` or ``open_failed``."""

    listen_id: str
    filter: dict[str, Any]


@dataclass(frozen=True)
class Stop:
    """Cancel these listens (no member needs one any more, or the group closed)."""

    retire: list[str]


def _retire(state: ListenState, listen_id: str | None) -> list[str]:
    if listen_id is None:
        return []
    if listen_id not in state.retired:
        state.retired.append(listen_id)
        del state.retired[:-RETIRED_MEMORY]
    return [listen_id]


def set_member(state: ListenState, member: str, filt: dict[str, Any]) -> None:
    """Record what ``member`` needs now (an empty filter: it needs nothing, it leaves)."""
    if filt:
        state.members[member] = dict(filt)
    else:
        state.members.pop(member, None)


def plan(state: ListenState, tighten: bool = True) -> Keep | Open | Stop:
    """What it takes for the upstream listen to serve the members. ``tighten``: replace a listen that asks for more
    than the members need (an unsubscribe); without it a covering listen is kept (a member left).
    FrameError(-32601) when the upstream has no listen."""
    if state.closed:
        return Keep({})
    target = union(state.members.values())
    if state.unsupported and target:
        raise FrameError(errors.METHOD_NOT_FOUND, "the upstream does not serve subscriptions/listen")
    if not target:
        old, state.current, state.newest_acked = state.current, None, None
        state.current_filter, state.acked = {}, {}
        return Stop(_retire(state, old))
    if state.current is not None and (state.current_filter == target or (not tighten and covers(state.current_filter, target))):
        return Keep(state.acked)
    listen_id = f"{state.prefix}-{state.next_id}"
    state.next_id += 1
    return Open(listen_id, target)


def on_ack(state: ListenState, listen_id: str) -> None:
    """The listen's ``notifications/subscriptions/acknowledged`` arrived: from now on its notifications count."""
    if listen_id not in state.retired and not state.closed:
        state.newest_acked = listen_id


def ack_filter(msg: Message) -> dict[str, Any]:
    """The granted filter of an acknowledgement (2026-07-28 basic/patterns/subscriptions.mdx §Acknowledgment)."""
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    notif = params.get("notifications")
    return notif if isinstance(notif, dict) else {}


@dataclass(frozen=True)
class Opened:
    """Cancel ``retire`` (the replaced listen); deliver ``invalidate`` (member -> notes) when events may be lost."""

    retire: list[str]
    invalidate: dict[str, list[Message]]


def opened(state: ListenState, listen_id: str, filt: dict[str, Any], acked: dict[str, Any]) -> Opened:
    """The listen was acknowledged: it becomes current."""
    old = state.current
    state.current, state.current_filter, state.acked = listen_id, dict(filt), dict(acked)
    state.backoff = BACKOFF_INITIAL
    lost, state.lost = state.lost, False
    invalidate = {m: invalidations(granted(f, acked)) for m, f in state.members.items()} if lost else {}
    return Opened(_retire(state, old) if old != listen_id else [], {m: n for m, n in invalidate.items() if n})


def open_failed(state: ListenState, listen_id: str, code: int | None) -> None:
    _retire(state, listen_id)
    if code == errors.METHOD_NOT_FOUND:
        state.unsupported = True


def granted(filt: dict[str, Any], acked: dict[str, Any]) -> dict[str, Any]:
    """What of one member's filter the listen's acknowledgement covers."""
    out: dict[str, Any] = {flag: True for flag, _m in INVALIDATIONS if filt.get(flag) and acked.get(flag)}
    uris = [u for u in filt.get(URIS) or [] if u in set(acked.get(URIS) or [])]
    if uris:
        out[URIS] = uris
    return out


def wants(filt: dict[str, Any], note: Message) -> bool:
    """Whether a (2025-shaped) change notification concerns the member with filter ``filt``."""
    method = note.get("method")
    if method in KIND_OF:
        return bool(filt.get(KIND_OF[method]))
    if method != UPDATED:
        return False  # anything else on a shared listen has no owner among the members: nobody gets it
    uri = (note.get("params") or {}).get("uri")
    if not isinstance(uri, str):
        return False
    subscribed = filt.get(URIS) or []
    # 2025 allows updates for sub-resources of a subscribed URI (2025-11-25 server/resources.mdx §Subscriptions).
    return uri in subscribed or any(uri.startswith(s.rstrip("/") + "/") for s in subscribed)


@dataclass(frozen=True)
class Deliver:
    """Deliver ``note`` to each of ``members``."""

    note: Message
    members: list[str]


def admit(state: ListenState, listen_id: str, msg: Message) -> Deliver | None:
    """A notification of listen ``listen_id``: the 2025 notification and the members that asked for it, or None."""
    if msg.get("method") == lf.ACKNOWLEDGED or state.closed:
        return None
    if listen_id in state.retired or (state.newest_acked is not None and state.newest_acked != listen_id):
        return None  # the replaced listen's tail: the new one covers it
    out = lf.to_legacy_notification(msg)
    if out is None:
        return None
    members = [m for m, filt in state.members.items() if wants(filt, out)]
    return Deliver(out, members) if members else None


@dataclass(frozen=True)
class Reopen:
    """After ``delay`` seconds, call ``reopen`` (listen ``ended`` ended while members relied on it)."""

    delay: float
    ended: str


COMPLETE, DROPPED = "complete", "dropped"


def end_kind(resp: Message | None, listen_id: Any) -> str:
    """How an acknowledged listen ended: ``COMPLETE`` for its completion result (a result whose ``resultType`` is
    ``"complete"`` -- absent counts as complete, 2026-07-28 schema ``Result.resultType`` -- and whose
    ``_meta`` names this listen as ``io.modelcontextprotocol/subscriptionId``); ``DROPPED`` for anything else: no
    response (the stream closed, the transport failed), an error, or a result that is not this listen's completion."""
    result = resp.get("result") if isinstance(resp, dict) else None
    if not isinstance(result, dict) or result.get("resultType", COMPLETE) != COMPLETE:
        return DROPPED
    meta = result.get("_meta")
    return COMPLETE if isinstance(meta, dict) and meta.get(META_SUBSCRIPTION_ID) == listen_id else DROPPED


def ended(state: ListenState, listen_id: str, kind: str = DROPPED) -> Reopen | None:
    """Listen ``listen_id`` ended by itself (``end_kind``): the server completed it, or it dropped."""
    if state.closed or listen_id in state.retired or state.current != listen_id:
        return None
    _retire(state, listen_id)
    state.current, state.newest_acked, state.lost = None, None, True
    if kind == COMPLETE:
        state.completed += 1
    else:
        state.dropped += 1
    return _next_reopen(state, listen_id) if state.members else None


def _next_reopen(state: ListenState, listen_id: str) -> Reopen:
    delay = state.backoff
    state.backoff = min(state.backoff * 2, BACKOFF_MAX)
    return Reopen(delay, listen_id)


def reopen(state: ListenState) -> Open | None:
    """Time to re-open: the listen to open, or None when that already happened (a member change) or nobody is left."""
    if state.closed or state.current is not None:
        return None
    step = plan(state)
    return step if isinstance(step, Open) else None


def reopen_failed(state: ListenState, step: Reopen) -> Reopen | None:
    return None if state.closed or not state.members else _next_reopen(state, step.ended)


def invalidations(acked: dict[str, Any]) -> list[Message]:
    """After a gap without a listen: every acknowledged kind changed, every acknowledged URI updated."""
    notes = [jsonrpc.notification(method) for key, method in INVALIDATIONS if acked.get(key)]
    uris = acked.get(URIS)
    for uri in uris if isinstance(uris, list) else []:
        notes.append(jsonrpc.notification(UPDATED, {"uri": uri}))
    return notes


def close(state: ListenState) -> list[str]:
    """The group is discarded (front shutdown): returns the listens to cancel."""
    state.closed = True
    state.members.clear()
    old, state.current = state.current, None
    return _retire(state, old)


@dataclass
class ListenBudget:
    """Upstream listens held for all the sessions of one front (each is a long-lived server resource)."""

    max: int
    open: int = 0
    refused: int = 0


LIMIT = "legacy_listens_max"


def take(budget: ListenBudget, replacing: bool = False) -> None:
    """One more listen, or FrameError naming the limit. A group replacing its own listen (make-before-break) may
    hold two for the moment of the overlap: the cap counts shared listens, not sessions."""
    if budget.open >= budget.max and not replacing:
        budget.refused += 1
        raise FrameError(errors.LIMIT_REACHED, f"Too many upstream listens ({LIMIT}={budget.max})",
                         {"limit": LIMIT, "max": budget.max})
    budget.open += 1


def give(budget: ListenBudget) -> None:
    budget.open = max(0, budget.open - 1)


def spent(budget: ListenBudget, replacing: bool) -> bool:
    """Whether opening one more listen needs one freed first (``take`` would refuse it)."""
    return budget.open >= budget.max and not replacing


def refused_before_ack(resp: Message | None) -> FrameError | None:
    """The error of an upstream listen that ended before its acknowledgement: the upstream's own, when it answered
    one; None when it answered none (the shell names its own failure then)."""
    err = resp.get("error") if resp is not None else None
    if not isinstance(err, dict):
        return None
    return FrameError(err.get("code", errors.INTERNAL_ERROR), str(err.get("message", "listen failed")))


T = TypeVar("T")


def longest_lingering(groups: Iterable[tuple[Sequence[float | None], T]]) -> T | None:
    """Of the groups whose members all linger (each one's idle-since time, None for a member in use), the one whose
    last member began to linger earliest: its listen is the one to free when the budget is spent."""
    best: tuple[float, T] | None = None
    for since, group in groups:
        if not since or any(s is None for s in since):
            continue
        latest = max(s for s in since if s is not None)
        if best is None or latest < best[0]:
            best = (latest, group)
    return best[1] if best is not None else None

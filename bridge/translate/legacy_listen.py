"""Direction B, pure: the upstream ``subscriptions/listen`` behind a 2025 session's unsolicited notifications.

A 2025 client learns of changes from notifications its session may receive at any time (2025-11-25
server/tools.mdx, prompts.mdx, resources.mdx §List Changed Notification; resources.mdx §Subscriptions). A 2026
server sends them only on a ``subscriptions/listen`` stream whose filter names what is wanted (2026-07-28
basic/patterns/subscriptions.mdx). One listen per session carries them; when the session's filter changes
(``resources/subscribe``/``unsubscribe``) a new listen replaces it make-before-break.

``ListenState`` is plain data (``to_json``/``from_json``). Rules, each with its section:

* the filter asks for the list_changed kinds the session was promised and its subscribed URIs (2026-07-28
  basic/patterns/subscriptions.mdx §Notification Filter);
* a new listen counts once acknowledged, with the filter the server granted (§Acknowledgment); only then is
  the old one cancelled (§Cancellation), so no change falls between the two (make-before-break);
* during the overlap only the newest acknowledged listen's notifications are delivered (no duplicates:
  2025-11-25 basic/transports.mdx §Multiple Connections, each message once);
* notifications are told apart by ``subscriptionId`` (§Receiving Notifications) and lose it for 2025;
* a listen that ends while the session still relies on it is re-opened after a backoff (0.5 s doubling to
  10 s); events may have been missed meanwhile, so the session is told every acknowledged kind changed
  (list_changed) and every acknowledged URI updated (§Graceful Closure: the stream may end at any time);
* a server without ``subscriptions/listen`` (-32601) is remembered: later subscribes get -32601 at once.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from mcp_eras.bridge import jsonrpc
from mcp_eras.bridge.jsonrpc import FrameError, Message
from mcp_eras.bridge.translate import errors
from mcp_eras.bridge.translate import legacy_front as lf

BACKOFF_INITIAL = 0.5
BACKOFF_MAX = 10.0
RETIRED_MEMORY = 16

INVALIDATIONS = (
    ("toolsListChanged", "notifications/tools/list_changed"),
    ("promptsListChanged", "notifications/prompts/list_changed"),
    ("resourcesListChanged", "notifications/resources/list_changed"),
)


@dataclass
class ListenState:
    next_id: int = 1
    current: str | None = None
    """The acknowledged listen the session relies on."""
    current_filter: dict[str, Any] = field(default_factory=dict)
    acked: dict[str, Any] = field(default_factory=dict)
    """The filter the current listen's acknowledgement granted."""
    newest_acked: str | None = None
    retired: list[str] = field(default_factory=list)
    unsupported: bool = False
    closed: bool = False
    backoff: float = BACKOFF_INITIAL

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ListenState:
        return cls(**data)


@dataclass(frozen=True)
class Keep:
    """Nothing to do: the current listen already serves the filter; ``acked`` is what it granted."""

    acked: dict[str, Any]


@dataclass(frozen=True)
class Open:
    """Open listen ``listen_id`` with ``filter``; report ``opened`` or ``open_failed``."""

    listen_id: str
    filter: dict[str, Any]


@dataclass(frozen=True)
class Stop:
    """Cancel these listens (no filter left, or the session closed)."""

    retire: list[str]


def _retire(state: ListenState, listen_id: str | None) -> list[str]:
    if listen_id is None:
        return []
    if listen_id not in state.retired:
        state.retired.append(listen_id)
        del state.retired[:-RETIRED_MEMORY]
    return [listen_id]


def plan(state: ListenState, filt: dict[str, Any]) -> Keep | Open | Stop:
    """What it takes for the upstream listen to match ``filt``. FrameError(-32601) when the upstream has none."""
    if state.closed:
        return Keep({})
    if state.unsupported and filt:
        raise FrameError(errors.METHOD_NOT_FOUND, "the upstream does not serve subscriptions/listen")
    if not filt:
        old, state.current, state.newest_acked = state.current, None, None
        state.current_filter, state.acked = {}, {}
        return Stop(_retire(state, old))
    if state.current is not None and state.current_filter == filt:
        return Keep(state.acked)
    listen_id = f"listen-{state.next_id}"
    state.next_id += 1
    return Open(listen_id, filt)


def on_ack(state: ListenState, listen_id: str) -> None:
    """The listen's ``notifications/subscriptions/acknowledged`` arrived: from now on its notifications count."""
    if listen_id not in state.retired and not state.closed:
        state.newest_acked = listen_id


def ack_filter(msg: Message) -> dict[str, Any]:
    """The granted filter of an acknowledgement (2026-07-28 basic/patterns/subscriptions.mdx §Acknowledgment)."""
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    notif = params.get("notifications")
    return notif if isinstance(notif, dict) else {}


def opened(state: ListenState, listen_id: str, filt: dict[str, Any], acked: dict[str, Any]) -> list[str]:
    """The listen was acknowledged: it becomes current; returns the listens to cancel now (the replaced one)."""
    old = state.current
    state.current, state.current_filter, state.acked = listen_id, dict(filt), dict(acked)
    state.backoff = BACKOFF_INITIAL
    return _retire(state, old) if old != listen_id else []


def open_failed(state: ListenState, listen_id: str, code: int | None) -> None:
    _retire(state, listen_id)
    if code == errors.METHOD_NOT_FOUND:
        state.unsupported = True


def admit(state: ListenState, listen_id: str, msg: Message) -> Message | None:
    """A notification of listen ``listen_id`` as the 2025 notification to deliver, or None to drop it."""
    if msg.get("method") == lf.ACKNOWLEDGED:
        return None
    if listen_id in state.retired or (state.newest_acked is not None and state.newest_acked != listen_id):
        return None  # the replaced listen's tail: the new one covers it
    out = lf.to_legacy_notification(msg)
    if out is None or out.get("method") not in lf.LISTEN_NOTIFICATIONS:
        return None
    return out


@dataclass(frozen=True)
class Reopen:
    """After ``delay`` seconds, call ``reopen`` with ``filter`` (the listen the session relied on ended)."""

    delay: float
    filter: dict[str, Any]


def ended(state: ListenState, listen_id: str) -> Reopen | None:
    """Listen ``listen_id`` ended by itself (upstream closed it, or failed)."""
    if state.closed or listen_id in state.retired or state.current != listen_id:
        return None
    return _next_reopen(state, dict(state.current_filter))


def _next_reopen(state: ListenState, filt: dict[str, Any]) -> Reopen:
    delay = state.backoff
    state.backoff = min(state.backoff * 2, BACKOFF_MAX)
    return Reopen(delay, filt)


def reopen(state: ListenState, filt: dict[str, Any]) -> Open | None:
    """Time to re-open: the listen to open, or None when the session moved on (closed, or another filter)."""
    if state.closed or (state.current is not None and state.current_filter != filt):
        return None
    _retire(state, state.current)
    state.current = None
    plan_ = plan(state, filt)
    return plan_ if isinstance(plan_, Open) else None


def reopen_failed(state: ListenState, filt: dict[str, Any]) -> Reopen | None:
    return None if state.closed else _next_reopen(state, filt)


def invalidations(acked: dict[str, Any]) -> list[Message]:
    """After a gap without a listen: every acknowledged kind changed, every acknowledged URI updated."""
    notes = [jsonrpc.notification(method) for key, method in INVALIDATIONS if acked.get(key)]
    uris = acked.get("resourceSubscriptions")
    for uri in uris if isinstance(uris, list) else []:
        notes.append(jsonrpc.notification("notifications/resources/updated", {"uri": uri}))
    return notes


@dataclass
class ListenBudget:
    """Upstream listens held for all the sessions of one front (each is a long-lived server resource)."""

    max: int
    open: int = 0
    refused: int = 0


LIMIT = "legacy_listens_max"


def take(budget: ListenBudget, replacing: bool = False) -> None:
    """One more listen, or FrameError naming the limit. A session replacing its own listen (make-before-break) may
    hold two for the moment of the overlap: the cap counts sessions with a listen."""
    if budget.open >= budget.max and not replacing:
        budget.refused += 1
        raise FrameError(errors.LIMIT_REACHED, f"Too many upstream listens ({LIMIT}={budget.max})",
                         {"limit": LIMIT, "max": budget.max})
    budget.open += 1


def give(budget: ListenBudget) -> None:
    budget.open = max(0, budget.open - 1)


def close(state: ListenState) -> list[str]:
    """The session ended: returns the listens to cancel."""
    state.closed = True
    old, state.current = state.current, None
    return _retire(state, old)

"""Direction B scaled out, pure: ONE upstream ``subscriptions/listen`` per share key across the instances.

On one instance the 2025 sessions of a share key share one upstream listen (``listen``). With a shared store the
sessions of a key are spread over the instances (each instance serves the sessions it initialized), so each would
hold its own listen. Instead the instances elect, per share key, a LEADER by a store lease (taken when free, renewed
by its holder every tick, lapsing after ``LEASE_TICKS`` ticks without renewal):

* the leader holds the upstream listen; its filter is the union of its own members' filters and of every other
  instance's wanted filter, which each instance writes to the store (remote members, ``remote_members``): one filter
  serves them all (2026-07-28 basic/patterns/subscriptions.mdx §Notification Filter, a plain union of kinds and URIs);
* the leader publishes each notification of its listen on the key's channel, and an acknowledgement (``ack``: the
  filter its listen was granted) after each (re-)listen, after each want it reads and on every tick;
* a FOLLOWER holds no upstream listen: its "listen" is the channel. It joins by writing its want and waiting for an
  ``ack`` that covers it (the leader read the want and listens for it), then delivers the channel's notifications to
  its members by the same per-member rules as a listen of its own;
* an instance that cannot follow (the store fails, no leader answers in time) holds its own upstream listen (LOCAL:
  what a single instance does); at its next tick it takes the lease if it is free, or follows a leader it hears.

Changes of source are make-before-break where nothing was lost (LOCAL to FOLLOWER, a deposed leader to FOLLOWER:
the new source is acknowledged before the old listen is cancelled). When the leader goes (its ``bye``, a new holder,
silence for ``STALE_TICKS`` ticks, a store fault) a follower's channel listen ends as an abrupt drop: notifications
of the gap may be lost, so the next listen tells each member every kind it relies on changed and every URI it
subscribed was updated -- what ``listen`` does after any drop (§Graceful Closure: a stream may end at any time;
2025-11-25 server/resources.mdx: an update says the resource may have changed, the client reads it again).

Decisions here, no I/O and no clock: the shell (``mcp_eras.bridge.scaleout.listens``) runs the ticks, the store and
the channel, and feeds the outcomes in.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import listen as ll

LOCAL, LEADER, FOLLOWER = "local", "leader", "follower"
UPSTREAM, CHANNEL = "upstream", "channel"
"""Where a listen's notifications come from: the upstream server, or the leader's channel."""
MINE, OTHER, FAULT = "mine", "other", "fault"
"""Outcomes of a lease attempt: this instance holds it, another one does, the store failed."""

LEASE_TICKS = 3
"""A lease lapses this many ticks after its holder's last renewal (a dead leader is replaced within that)."""
STALE_TICKS = 3
"""Ticks without a word of the lease holder after which a follower stops trusting it."""
MAX_LINKED_KEYS = 256
"""Share keys an instance coordinates through the store (each one a channel subscription); others stay LOCAL."""
MAX_REMOTE = 64
"""Other instances' wants one leader serves for a key (more are ignored; they fall back to their own listen)."""
MAX_MESSAGE_BYTES = 64 * 1024
"""A channel message (a notification or an acknowledgement) larger than this is neither published nor delivered."""
MAX_QUEUED = 1024
"""Channel notifications a follower holds for delivery; past it the channel listen ends as a drop."""
REMOTE_PREFIX = "@"
"""Remote members are ``@<instance>`` in the leader's ``ListenState.members`` (local member tokens are ``m<n>``)."""

# Actions of ``tick``:
KEEP = "keep"
PROMOTE = "promote"
"""This instance took the lease while holding its own listen: serve the others' wants with it and announce it."""
ANNOUNCE = "announce"
"""The leader renewed: read the wants again and announce the listen's acknowledged filter."""
FOLLOW = "follow"
"""Replace this instance's own listen by the channel (make-before-break)."""
END_FOLLOW = "end_follow"
"""The channel listen can no longer be trusted: end it as a drop (the re-listen decides the source again)."""


def digest(share_key: str) -> str:
    """A share key's name in the store and on the channel (the key itself holds a principal: not written out)."""
    return hashlib.sha256(share_key.encode()).hexdigest()[:32]


@dataclass
class Coordination:
    """One share key's coordination on this instance."""

    me: str
    role: str = LOCAL
    holder: str | None = None
    """The lease holder by the last attempt (None: unknown, or the store failed)."""
    silent: int = STALE_TICKS
    """Ticks since the holder was last heard on the channel (at first: never heard)."""
    heard: bool = False
    """The holder spoke since the last tick."""
    followed: str | None = None
    """The leader whose channel the current channel listen follows."""
    epoch: int = 0
    """How many of the followed leader's listens had ended by themselves when this instance began to follow."""


def attempted(co: Coordination, outcome: str, holder: str | None) -> str:
    """A lease attempt before a (re-)listen: the source of the listen to open. The channel only when its holder was
    heard lately: a request never waits on a leader that may be gone (this instance listens itself at once, and a
    tick follows the holder once it is heard, make-before-break)."""
    previous, co.holder = co.holder, (holder if outcome != FAULT else None)
    if outcome == MINE:
        co.role = LEADER
        return UPSTREAM
    if outcome == OTHER and previous == holder and (co.heard or co.silent < STALE_TICKS):
        return CHANNEL
    if outcome == OTHER and previous != holder:
        co.silent, co.heard = STALE_TICKS, False  # a new holder is trusted once it has been heard
    co.role = LOCAL
    return UPSTREAM


def source(co: Coordination) -> str:
    """The source of a listen that replaces the current one because the members changed (no lease attempt)."""
    return CHANNEL if co.role == FOLLOWER else UPSTREAM


def opened(co: Coordination, src: str, ok: bool) -> None:
    """A listen from ``src`` was acknowledged (``ok``) or could not be (then a channel gives way to the upstream)."""
    if src == CHANNEL:
        co.role = FOLLOWER if ok else LOCAL
        co.followed = co.holder if ok else None
        if ok:
            co.silent, co.heard = 0, False
    elif ok and co.role == FOLLOWER:
        co.role = LOCAL


def heard(co: Coordination, sender: Any) -> bool:
    """A message from ``sender`` arrived on the channel: whether it is the holder's (the only one a follower trusts)."""
    if isinstance(sender, str) and sender == co.holder and sender != co.me:
        co.heard = True
        return True
    return False


def followed_at(co: Coordination, epoch: int) -> None:
    """The channel listen starts from the leader's acknowledgement with ``epoch`` (``ack_message``)."""
    co.epoch = epoch


def leader_dropped(co: Coordination, heard: Heard) -> bool:
    """Whether the followed leader's own listen ended since this instance began to follow (its acknowledgement counts
    more ends): the gap may have hidden changes from the followers too, so their channel listen ends as a drop."""
    return co.role == FOLLOWER and heard.kind == "ack" and heard.sender == co.followed and heard.epoch > co.epoch


def tick(co: Coordination, outcome: str, holder: str | None) -> str:
    """The periodic lease attempt (take when free, renew when held) of an instance with members: what to do now."""
    co.silent = 0 if co.heard else co.silent + 1
    co.heard = False
    previous, co.holder = co.holder, (holder if outcome != FAULT else None)
    if outcome == FAULT:
        if co.role == FOLLOWER:
            return END_FOLLOW
        co.role = LOCAL
        return KEEP
    if outcome == MINE:
        if co.role == FOLLOWER:
            return END_FOLLOW  # the leader's lease lapsed and this instance took it: the re-listen holds the upstream
        promote = co.role == LOCAL
        co.role = LEADER
        return PROMOTE if promote else ANNOUNCE
    if co.role == FOLLOWER:
        return END_FOLLOW if co.silent >= STALE_TICKS or co.followed != holder else KEEP
    if co.role == LEADER:
        co.role = LOCAL  # deposed (its lease lapsed while the store was away): its listen now serves only its own
    if previous != holder:
        co.silent = STALE_TICKS  # a new holder is trusted once it has been heard
        return KEEP
    return FOLLOW if co.silent == 0 else KEEP


def remote_members(wants: list[Any], me: str) -> dict[str, dict[str, Any]]:
    """The leader's remote members from the wants the instances wrote (``want``): ``@<instance>`` -> filter."""
    out: dict[str, dict[str, Any]] = {}
    for entry in wants:
        if not isinstance(entry, dict) or len(out) >= MAX_REMOTE:
            continue
        instance, filt = entry.get("instance"), entry.get("filter")
        if isinstance(instance, str) and instance != me and isinstance(filt, dict):
            clean = ll.union([filt])
            if clean:
                out[REMOTE_PREFIX + instance] = clean
    return out


def set_remote(state: ll.ListenState, remote: dict[str, dict[str, Any]]) -> bool:
    """Make the remote members of ``state`` be ``remote`` (none when no local member is left: a leader serves others
    only while it has members of its own); True when they changed."""
    if not any(not is_remote(m) for m in state.members):
        remote = {}
    before = {m: f for m, f in state.members.items() if is_remote(m)}
    if before == remote:
        return False
    for member in before:
        state.members.pop(member, None)
    state.members.update(remote)
    return True


def is_remote(member: str) -> bool:
    return member.startswith(REMOTE_PREFIX)


def local_filter(state: ll.ListenState) -> dict[str, Any]:
    """What this instance's own members need (its want)."""
    return ll.union(f for m, f in state.members.items() if not is_remote(m))


def replace(state: ll.ListenState) -> ll.Open | None:
    """A listen that replaces the current one whatever its filter (a change of source), or None when none is needed."""
    if state.closed or not state.members or state.unsupported:
        return None
    listen_id = f"{state.prefix}-{state.next_id}"
    state.next_id += 1
    return ll.Open(listen_id, ll.union(state.members.values()))


def to_publish(state: ll.ListenState, listen_id: str, msg: Message) -> bool:
    """Whether a notification of the leader's listen ``listen_id`` goes on the channel (once): it is a change
    notification of the listen the members rely on (as ``ll.admit`` decides) and another instance is served. Which
    of their members get it is decided there, by each member's own filter: a remote member's filter here may lag
    behind what its instance needs now."""
    if msg.get("method") == lf.ACKNOWLEDGED or state.closed or listen_id in state.retired:
        return False
    if state.newest_acked is not None and state.newest_acked != listen_id:
        return False
    if not any(is_remote(m) for m in state.members):
        return False
    out = lf.to_legacy_notification(msg)
    return out is not None and (out.get("method") in ll.KIND_OF or out.get("method") == ll.UPDATED)


# --- channel messages ----------------------------------------------------------------------------------------------


def note_message(me: str, msg: Message) -> dict[str, Any] | None:
    """The channel message carrying one upstream notification, or None when it is over ``MAX_MESSAGE_BYTES``."""
    out = {"t": "note", "from": me, "n": msg}
    return out if _size(out) <= MAX_MESSAGE_BYTES else None


def epoch(state: ll.ListenState) -> int:
    """The leader's count of its listens that ended by themselves (completed or dropped)."""
    return state.completed + state.dropped


def ack_message(me: str, acked: dict[str, Any], ended: int) -> dict[str, Any] | None:
    """The leader's acknowledgement: the filter its listen was granted and ``epoch`` of its state."""
    out = {"t": "ack", "from": me, "filter": acked, "epoch": ended}
    return out if _size(out) <= MAX_MESSAGE_BYTES else None


def want_message(me: str) -> dict[str, Any]:
    return {"t": "want", "from": me}


def bye_message(me: str) -> dict[str, Any]:
    return {"t": "bye", "from": me}


def want(me: str, filt: dict[str, Any]) -> dict[str, Any]:
    """What an instance writes to the store for a key: its members' union."""
    return {"instance": me, "filter": filt}


@dataclass(frozen=True)
class Heard:
    """A channel message, checked: ``kind`` (note/ack/want/bye), its sender, and its payload."""

    kind: str
    sender: str
    payload: Any = None
    epoch: int = 0


def read(message: Any) -> Heard | None:
    """A channel message as this instance may act on it, or None when it is malformed or too large."""
    if not isinstance(message, dict) or not isinstance(message.get("from"), str):
        return None
    kind, sender = message.get("t"), message["from"]
    if kind == "note":
        note = message.get("n")
        ok = isinstance(note, dict) and isinstance(note.get("method"), str) and _size(message) <= MAX_MESSAGE_BYTES
        return Heard(kind, sender, note) if ok else None
    if kind == "ack":
        filt = message.get("filter")
        count = message.get("epoch")
        ended = count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else 0
        return Heard(kind, sender, ll.union([filt]), ended) if isinstance(filt, dict) else None
    if kind in ("want", "bye"):
        return Heard(kind, sender)
    return None


def _size(message: dict[str, Any]) -> int:
    return len(json.dumps(message, separators=(",", ":")))

"""Direction B, pure: the replayable SSE streams of the 2025 Streamable HTTP front, as plain data with the time
passed in (one stream per POST, one GET stream per session).

2025-11-25 basic/transports.mdx §Resumability and Redelivery: event ids are unique within the session and name
their stream (``<stream key>.<sequence>``), a client resumes with ``Last-Event-ID`` on GET, and the server replays
only what followed on *that* stream. §Multiple Connections: each message goes to one stream only. §Sending Messages
to the Server item 5: a request is answered with one JSON body or an SSE stream, the server's choice.

The shell (``mcp_eras.bridge.front.event_stream``, ``legacy_http``) adds the waiting: consumers woken by a push, the
take-over of a GET stream, the keep-alives.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass

from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate.eras import MRTR_METHODS
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId
from mcp_eras.bridge.translate.sse import sse_event

GET_KEY = "g"
"""The key of a session's GET stream (POST streams are ``p<n>``)."""

SWEEP_MIN = 64
"""Streams a session holds before a new one first sweeps the expired ones."""

SSE_RETRY_MS = 1000
"""``retry`` advertised on primed POST streams: how soon a 2025 client reconnects after a drop
(2025-11-25 basic/transports.mdx §Sending Messages to the Server item 6)."""

PRIME_HOLD = 0.1
"""Seconds the POST of a call that may run long (``tools/call``, ``prompts/get``, ``resources/read``) waits for the
call's first message before it answers. A call answered within the hold with nothing before its answer is answered
as one JSON body (2025-11-25 basic/transports.mdx §Sending Messages to the Server item 5: either form is the server's
choice); otherwise the answer is an SSE stream whose priming event goes out at once, before every message (item 6:
the id that lets a dropped client resume). A message before the answer ends the hold at once, so only a silent call
waits, and it waits for nothing the client could see (a priming event carries no data).

The hold is longer than an unloaded call needs because a loaded upstream is slower: with 20 ms, 64 concurrent 2025
callers of a server answering in ~50 ms turned 99% of answers into SSE streams (the heavier path, just when the bridge
is busiest). What it costs: a connection lost within the first 100 ms of a silent call cannot resume it."""


def may_run_long(method: str) -> bool:
    """Calls that may run long or need client input (2026-07-28 basic/patterns/mrtr.mdx §Supported Requests): their
    POST holds ``PRIME_HOLD`` and answers on a primed SSE stream unless the call is answered within it."""
    return method in MRTR_METHODS


def parse_event_id(event_id: str) -> tuple[str, int] | None:
    """``<stream key>.<sequence>`` -> (key, sequence); None when it is not one of ours."""
    key, _, seq = event_id.rpartition(".")
    if not key or not seq.isdigit():
        return None
    return key, int(seq)


def failed_request(request_id: RequestId) -> Message:
    """What a request's stream carries when the bridge failed serving it (a bug: logged by the shell)."""
    return jsonrpc.error_response(request_id, errors.INTERNAL_ERROR, "Internal error")


NOT_ACCEPTABLE = jsonrpc.error_response(None, errors.INVALID_REQUEST, "Not Acceptable: GET requires Accept: text/event-stream")
"""The answer to a GET that does not accept an event stream (with ``errors.LEGACY_NOT_ACCEPTABLE_STATUS``)."""


def accepts_event_stream(accept: str) -> bool:
    """A GET must accept ``text/event-stream`` (2025-11-25 basic/transports.mdx §Listening for Messages from the
    Server: the client MUST include it); a wildcard accepts it too."""
    return "text/event-stream" in accept or "*/*" in accept


class ReplayBuffer:
    """An ordered sequence of events with ids ``<key>.<seq>``, kept for replay within ``retention`` seconds."""

    def __init__(self, key: str, retention: float) -> None:
        self.key = key
        self.retention = retention
        self.events: deque[tuple[int, float, Message]] = deque()
        """(sequence, when it was pushed, the message)."""
        self.seq = 0
        self.closed = False
        self.closed_at: float | None = None
        self.consumers = 0
        """Responses streaming this stream now (a stream is not forgotten while one does)."""

    def append(self, msg: Message, now: float) -> int | None:
        """Add an event; returns its sequence (None once closed). Events older than the retention are dropped."""
        if self.closed:
            return None
        self.seq += 1
        self.events.append((self.seq, now, msg))
        while self.events and self.events[0][1] < now - self.retention:
            self.events.popleft()
        return self.seq

    def end(self, now: float) -> bool:
        """Close the stream; False when it already was."""
        if self.closed:
            return False
        self.closed, self.closed_at = True, now
        return True

    def expired(self, now: float) -> bool:
        """Closed, unread, and past the retention: nobody can resume it any more."""
        return self.closed and self.consumers == 0 and self.closed_at is not None and self.closed_at < now - self.retention

    def has_after(self, cursor: int) -> bool:
        return bool(self.events) and self.events[-1][0] > cursor

    def after(self, cursor: int) -> list[tuple[int, Message]]:
        """The events with a sequence above ``cursor``, in order."""
        return [(s, m) for (s, _t, m) in self.events if s > cursor]

    def one_answer(self) -> bool:
        """The request is over with at most its response on the stream: it can be answered as one JSON body
        (2025-11-25 basic/transports.mdx §Sending Messages to the Server item 5) instead of an SSE stream."""
        return self.closed and len(self.events) <= 1

    def single_answer(self, request_id: RequestId) -> Message:
        """The JSON body of a request whose stream is ``one_answer``: its one event, or, when the client cancelled the
        request (nothing on the stream), an error carrying its id that the client will ignore (it expects no
        response: 2025-11-25 basic/utilities/cancellation.mdx)."""
        if self.events:
            return self.events[0][2]
        return jsonrpc.error_response(request_id, errors.INTERNAL_ERROR, "Request cancelled")

    def frames(self, batch: Iterable[tuple[int, Message]]) -> bytes:
        """SSE events of a batch, each with its replayable id."""
        key = self.key
        return b"".join([sse_event(m, f"{key}.{s}") for s, m in batch])


def sweep(streams: MutableMapping[str, ReplayBuffer], now: float) -> int:
    """Forget the expired POST streams of a session; returns how many streams the table may hold before the next
    sweep. Sweeping when the table has doubled since the last sweep is amortized O(1) per POST (a sweep on every
    POST walked every stream kept for replay) and holds at most twice the live set."""
    for key in [k for k, s in streams.items() if k != GET_KEY and s.expired(now)]:
        del streams[key]
    return max(SWEEP_MIN, 2 * len(streams))


@dataclass(frozen=True, slots=True)
class Resume:
    """A GET that resumes a stream after ``after``: a POST stream (replayed to its end) or the GET stream."""

    key: str
    after: int
    post: bool


def resume_target(last_event_id: str | None, streams: MutableMapping[str, ReplayBuffer]) -> Resume | None:
    """The stream a GET with ``Last-Event-ID`` resumes; None for an unknown or expired one (the client then gets a
    fresh GET stream: 2025-11-25 basic/transports.mdx §Resumability and Redelivery leaves that to the server)."""
    last = parse_event_id(last_event_id or "")
    if last is None or last[0] not in streams:
        return None
    return Resume(last[0], last[1], post=last[0] != GET_KEY)


@dataclass
class GetWatch:
    """Whether a 2025 session's GET stream is being read, and since when it is not. List changes reach a 2025 client
    only on that stream (2025-11-25 basic/transports.mdx §Listening for Messages from the Server), so the session's
    upstream listen carries them while one is read and lingers a while after the last one ends (a client reconnects),
    then drops them (only subscriptions keep it)."""

    attached: int = 0
    """GET requests streaming the session's GET stream (or about to)."""
    lingering_since: float | None = None
    """No GET stream since then (None while one is read, or once the linger is over)."""

    def attach(self) -> bool:
        """A GET stream is about to flow; True for the first: the listen must carry list changes (again)."""
        self.attached += 1
        self.lingering_since = None
        return self.attached == 1

    def detach(self) -> bool:
        """A GET stream ended; True for the last: the listen lingers from now (``linger``)."""
        self.attached -= 1
        return self.attached == 0

    def linger(self, now: float) -> None:
        self.lingering_since = now

    def stop_lingering(self) -> bool:
        """The linger is over (its time passed, or the listen budget needs it back): True when no GET stream came
        back meanwhile, so the listen drops list changes."""
        if self.attached or self.lingering_since is None:
            return False
        self.lingering_since = None
        return True

    def idle_since(self, subscribed: bool) -> float | None:
        """Since when the session needs no listen at all (no GET stream, nothing subscribed); None while it does."""
        return None if self.attached or subscribed else self.lingering_since

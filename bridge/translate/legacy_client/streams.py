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
from collections.abc import Iterable, Mapping, MutableMapping
from dataclasses import dataclass

from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate.eras import MRTR_METHODS
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId
from mcp_eras.bridge.translate.sse import sse_data_event

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


REPLAY_SESSION_BYTES = 8 * 1024 * 1024
"""Bytes of events one 2025 session keeps for ``Last-Event-ID`` replay, over all its streams; past it the oldest
events already delivered are dropped (2025-11-25 basic/transports.mdx §Resumability and Redelivery: replay is the
server's option, so a window is allowed)."""

REPLAY_TOTAL_BYTES = 128 * 1024 * 1024
"""Bytes of events all 2025 sessions of the process keep for replay, with the same rule."""

STREAM_EVENTS_MAX = 1024
"""Events one stream keeps, delivered or not (a GET stream nobody reads keeps the newest notifications)."""

EVENT_OVERHEAD = 512
"""Bytes charged per kept event besides its JSON (its record and its places in the ledgers): many small events
count as what they cost."""

REPLAY_LIMIT = "replay_window"


class Event:
    """One kept event: its sequence, when it was pushed, its JSON-RPC frame serialized once (sent as JSON or SSE), and
    the stream that keeps it (None once dropped: a dropped event waiting in a ledger's order holds no stream)."""

    __slots__ = ("seq", "at", "data", "size", "kept", "stream")

    def __init__(self, seq: int, at: float, data: bytes, stream: ReplayBuffer | EndedStream | None = None) -> None:
        self.seq = seq
        self.at = at
        self.data = data
        self.size = len(data) + EVENT_OVERHEAD
        self.kept = True
        self.stream = stream

    def drop(self) -> None:
        self.kept = False
        self.data = b""
        self.stream = None


class ReplayLedger:
    """The kept events of several streams (a session's, or the whole process's) in push order, within ``limit``
    bytes: past it, the oldest events a consumer already took are dropped (with any older ones of their stream).
    Events nobody has taken yet (an answer on its way) are not dropped for space: the streams' own caps
    (``STREAM_EVENTS_MAX``, the retention) bound them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.bytes = 0
        self.live = 0
        self.dropped = 0
        """Events dropped for space (exported by the shell's status)."""
        self._order: deque[Event] = deque()
        """Charged events in push order, dropped ones among them until the next compaction (they hold no stream)."""

    def charge(self, event: Event) -> None:
        order = self._order
        if len(order) > 2 * self.live + 64:  # entries of events released since: dropped, amortized O(1)
            order = self._order = deque(entry for entry in order if entry.kept)
        order.append(event)
        self.bytes += event.size
        self.live += 1
        if self.bytes > self.limit:
            self._make_room()

    def release(self, event: Event) -> None:
        self.bytes -= event.size
        self.live -= 1
        if not self.live:
            self._order.clear()

    def _make_room(self) -> None:
        order = self._order
        for _ in range(len(order)):
            if self.bytes <= self.limit or not order:
                break
            event = order.popleft()
            stream = event.stream
            if not event.kept or stream is None:
                continue
            if event.seq > stream.taken:
                order.append(event)  # not delivered yet: kept, looked at again later
                continue
            self.dropped += stream.drop_through(event.seq)


class ReplayBuffer:
    """An ordered sequence of events with ids ``<key>.<seq>``, kept for replay within ``retention`` seconds, at most
    ``STREAM_EVENTS_MAX`` of them, and within the bytes of its ``ledgers`` (the session's, the process's)."""

    def __init__(self, key: str, retention: float, ledgers: tuple[ReplayLedger, ...] = ()) -> None:
        self.key = key
        self.retention = retention
        self.ledgers = ledgers
        self.events: deque[Event] = deque()
        self.seq = 0
        self.dropped_through = 0
        """The highest sequence no longer kept (replay after an older one has a gap)."""
        self.taken = 0
        """The highest sequence a consumer has taken (events up to it may be dropped for space)."""
        self.closed = False
        self.closed_at: float | None = None
        self.consumers = 0
        """Responses streaming this stream now (a stream is not forgotten while one does)."""
        self.request_id: RequestId | None = None
        """The request a POST stream answers (for the error a resume past the window gets)."""

    def append(self, msg: Message, now: float) -> int | None:
        """Add an event; returns its sequence (None once closed). Events older than the retention, or past the
        count, are dropped."""
        if self.closed:
            return None
        self.seq += 1
        # A copy of orjson's output at its length: orjson's buffer is at least 4 KiB, and far larger than the JSON for
        # long texts (16 times for 256 KiB), and stays that large while the bytes live (measured with tracemalloc).
        event = Event(self.seq, now, bytes(memoryview(jsonrpc.dumps(msg))), self)
        events = self.events
        events.append(event)
        for ledger in self.ledgers:
            ledger.charge(event)
        horizon = now - self.retention
        while events and (events[0].at < horizon or len(events) > STREAM_EVENTS_MAX):
            self._drop_head()
        return self.seq

    def _drop_head(self) -> None:
        event = self.events.popleft()
        event.drop()
        self.dropped_through = event.seq
        for ledger in self.ledgers:
            ledger.release(event)

    def drop_through(self, seq: int) -> int:
        """Drop the kept events up to ``seq``; returns how many."""
        n = 0
        while self.events and self.events[0].seq <= seq:
            self._drop_head()
            n += 1
        return n

    def discard(self) -> None:
        """The stream is forgotten (swept, answered as JSON, its session ended): its events leave the ledgers."""
        self.drop_through(self.seq)

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
        return bool(self.events) and self.events[-1].seq > cursor

    def after(self, cursor: int) -> list[tuple[int, bytes]]:
        """The kept events with a sequence above ``cursor``, in order, as (sequence, JSON); taken by a consumer."""
        out = [(e.seq, e.data) for e in self.events if e.seq > cursor]
        if out and out[-1][0] > self.taken:
            self.taken = out[-1][0]
        return out

    def one_answer(self) -> bool:
        """The request is over with at most its response on the stream: it can be answered as one JSON body
        (2025-11-25 basic/transports.mdx §Sending Messages to the Server item 5) instead of an SSE stream."""
        return self.closed and len(self.events) <= 1 and self.dropped_through == 0

    def single_answer(self, request_id: RequestId) -> bytes:
        """The JSON body of a request whose stream is ``one_answer``: its one event, or, when the client cancelled the
        request (nothing on the stream), an error carrying its id that the client will ignore (it expects no
        response: 2025-11-25 basic/utilities/cancellation.mdx)."""
        if self.events:
            return self.events[0].data
        return jsonrpc.dumps(jsonrpc.error_response(request_id, errors.INTERNAL_ERROR, "Request cancelled"))

    def lost_after(self, cursor: int) -> bool:
        """A resume after ``cursor`` cannot be served: the stream has ended and what followed ``cursor`` (its
        answer among it) is no longer kept."""
        return self.closed and cursor < self.seq and not self.has_after(cursor) and self.dropped_through > cursor

    def frames(self, batch: Iterable[tuple[int, bytes]]) -> bytes:
        """SSE events of a batch, each with its replayable id."""
        key = self.key
        return b"".join([sse_data_event(data, f"{key}.{s}") for s, data in batch])


class EndedStream:
    """A POST stream that has ended and that nobody reads, kept for ``Last-Event-ID`` replay in a compact form: its
    kept events as the SSE bytes a resume sends (one buffer), and the few numbers a resume needs.

    Why: an elicitation round answered on SSE leaves a stream that a session keeps for the retention
    (``POST_STREAMS_KEPT`` of them). As live ``ReplayBuffer`` records (a deque, an object per event, a dict of
    attributes) those are thousands of small objects per session, spread over Python's allocator arenas; after the
    sessions end, the few long-lived objects allocated among them pin the arenas and the process stays ~19 MB
    larger after 10,000 rounds (issue #33). One buffer per stream is mostly one allocation the C allocator hands
    back. Replay stays what ``ReplayBuffer.after`` gives: the kept events after the client's cursor, in order
    (2025-11-25 basic/transports.mdx §Resumability and Redelivery)."""

    __slots__ = ("key", "request_id", "seq", "closed_at", "retention", "dropped_through", "taken", "kept", "ledgers")

    closed = True
    consumers = 0

    def __init__(self, stream: ReplayBuffer) -> None:
        self.key = stream.key
        self.request_id = stream.request_id
        self.seq = stream.seq
        self.closed_at = stream.closed_at if stream.closed_at is not None else 0.0
        self.retention = stream.retention
        self.ledgers = stream.ledgers
        key = stream.key
        blob = b"".join([sse_data_event(e.data, f"{key}.{e.seq}") for e in stream.events])
        self.dropped_through = stream.events[0].seq - 1 if stream.events else stream.seq
        self.taken = stream.taken
        stream.discard()  # the events leave the ledgers; the buffer takes their place in them
        self.kept: Event | None = None
        if blob:
            self.kept = Event(self.seq, self.closed_at, blob, self)
            for ledger in self.ledgers:
                ledger.charge(self.kept)

    def has_after(self, cursor: int) -> bool:
        return self.kept is not None and self.seq > cursor

    def lost_after(self, cursor: int) -> bool:
        """As ``ReplayBuffer.lost_after``: what followed ``cursor`` (the answer among it) is no longer kept."""
        return cursor < self.seq and not self.has_after(cursor) and self.dropped_through > cursor

    def replay(self, cursor: int) -> bytes:
        """The SSE events after ``cursor`` (the kept tail when older ones were dropped)."""
        if self.kept is None or cursor >= self.seq:
            return b""
        blob = self.kept.data
        if cursor <= self.dropped_through:
            return blob
        head = f"id: {self.key}.{cursor + 1}\n".encode()
        if blob.startswith(head):
            return blob
        at = blob.find(b"\n\n" + head)
        return blob[at + 2:] if at >= 0 else b""

    def drop_through(self, seq: int) -> int:
        """Drop the kept events up to ``seq`` (all of them: they are one buffer); returns how many buffers."""
        if self.kept is None or seq < self.dropped_through + 1:
            return 0
        kept, self.kept = self.kept, None
        kept.drop()
        self.dropped_through = self.seq
        for ledger in self.ledgers:
            ledger.release(kept)
        return 1

    def discard(self) -> None:
        self.drop_through(self.seq)

    def expired(self, now: float) -> bool:
        return self.closed_at < now - self.retention


Kept = ReplayBuffer | EndedStream
"""What a session's stream table holds: live streams, and ended POST streams kept compact."""


def archive(streams: MutableMapping[str, Kept], stream: ReplayBuffer) -> None:
    """Keep a POST stream that has ended and that nobody reads as an ``EndedStream`` (if the session still keeps it)."""
    if stream.closed and stream.consumers == 0 and stream.key != GET_KEY and streams.get(stream.key) is stream:
        streams[stream.key] = EndedStream(stream)


def lost_answer(request_id: RequestId | None, retention: float) -> Message:
    """What a resume past the replay window gets instead of the answer it can no longer have (the client should
    call again)."""
    return jsonrpc.error_response(
        request_id, errors.INTERNAL_ERROR,
        f"The answer is no longer kept for replay ({REPLAY_LIMIT}: {int(retention)} s, "
        f"{REPLAY_SESSION_BYTES // (1024 * 1024)} MiB per session): call again",
        {"limit": REPLAY_LIMIT})


def sweep(streams: MutableMapping[str, Kept], now: float) -> int:
    """Forget the expired POST streams of a session; returns how many streams the table may hold before the next
    sweep. Sweeping when the table has doubled since the last sweep is amortized O(1) per POST (a sweep on every
    POST walked every stream kept for replay) and holds at most twice the live set."""
    for key in [k for k, s in streams.items() if k != GET_KEY and s.expired(now)]:
        streams.pop(key).discard()
    return max(SWEEP_MIN, 2 * len(streams))


POST_STREAMS_KEPT = 256
"""POST streams one session keeps for replay, as many as it may have requests in flight (``session.INFLIGHT_MAX``):
every stream a dropped connection interrupted stays resumable until 256 later calls of the session have ended. Past it
the oldest ended streams nobody reads are forgotten (``shed``); the byte ledgers and the retention bound them too.

Each kept stream costs about 0.75 KB besides its events (an ``EndedStream``: its buffer, its key, its place in the
ledgers). At 1,024 streams, four sessions of 2,500 elicitation rounds left the process 6 MB above its start after the
sessions ended (the small objects pinned Python's allocator arenas); at 256, 3.5 MB (issue #33 acceptance 3)."""


def shed(streams: MutableMapping[str, Kept], keep: int) -> None:
    """Forget the oldest ended POST streams nobody reads until at most ``keep`` streams remain (streams still open or
    read stay). A resume of a forgotten stream gets a fresh GET stream, as one past the retention does."""
    excess = len(streams) - keep
    if excess <= 0:
        return
    doomed: list[str] = []
    for key, stream in streams.items():  # oldest first: usually the first ``excess`` are ended
        if key != GET_KEY and stream.closed and stream.consumers == 0:
            doomed.append(key)
            if len(doomed) == excess:
                break
    for key in doomed:
        streams.pop(key).discard()


@dataclass(frozen=True, slots=True)
class Resume:
    """A GET that resumes a stream after ``after``: a POST stream (replayed to its end) or the GET stream."""

    key: str
    after: int
    post: bool


def resume_target(last_event_id: str | None, streams: Mapping[str, Kept]) -> Resume | None:
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

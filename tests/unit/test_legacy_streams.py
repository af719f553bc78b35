"""translate.legacy_client.streams: the replayable SSE streams of the 2025 HTTP front as plain data, with the time
passed in (2025-11-25 basic/transports.mdx §Resumability and Redelivery)."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.legacy_client.streams import (
    GET_KEY,
    NOT_ACCEPTABLE,
    PRIME_HOLD,
    SSE_RETRY_MS,
    SWEEP_MIN,
    GetWatch,
    ReplayBuffer,
    Resume,
    accepts_event_stream,
    failed_request,
    may_run_long,
    parse_event_id,
    resume_target,
    sweep,
)
from mcp_eras.bridge.translate.sse import SseParser

import spec


def note(n: int) -> dict[str, object]:
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "progress": n}}


def frames(batch: list[tuple[int, bytes]]) -> list[tuple[int, object]]:
    """A batch of kept events (each serialized once, when pushed) as (sequence, message)."""
    return [(seq, jsonrpc.loads(data)) for seq, data in batch]


def test_events_are_numbered_kept_for_the_retention_and_replayed_after_a_cursor() -> None:
    buffer = ReplayBuffer("p1", retention=10.0)
    assert [buffer.append(note(n), now=float(n)) for n in (1, 2, 3)] == [1, 2, 3]
    assert frames(buffer.after(1)) == [(2, note(2)), (3, note(3))] and buffer.has_after(2) and not buffer.has_after(3)
    assert buffer.append(note(4), now=12.5) == 4  # the events pushed before 2.5 are past the retention
    assert [s for s, _ in buffer.after(0)] == [3, 4]


def test_a_closed_stream_takes_nothing_and_expires_once_unread_past_the_retention() -> None:
    buffer = ReplayBuffer("p1", retention=10.0)
    buffer.append(note(1), now=0.0)
    assert buffer.end(now=1.0) and not buffer.end(now=2.0)
    assert buffer.append(note(2), now=3.0) is None and buffer.seq == 1
    assert not buffer.expired(now=11.0) and buffer.expired(now=11.5)
    buffer.consumers = 1  # a response still streams it
    assert not buffer.expired(now=100.0)


def test_one_answer_is_a_closed_stream_with_at_most_the_response() -> None:
    buffer = ReplayBuffer("p1", 60.0)
    buffer.append(note(1), 0.0)
    assert not buffer.one_answer()
    buffer.end(0.0)
    assert buffer.one_answer()  # the response alone: one JSON body (item 5 of Sending Messages to the Server)
    other = ReplayBuffer("p2", 60.0)
    other.append(note(1), 0.0)
    other.append(note(2), 0.0)
    other.end(0.0)
    assert not other.one_answer() and ReplayBuffer("p3", 60.0).one_answer() is False


def test_frames_carry_ids_that_name_the_stream_and_parse_back() -> None:
    buffer = ReplayBuffer("p7", 60.0)
    for n in (1, 2):
        buffer.append(note(n), 0.0)
    events = SseParser().feed(buffer.frames(buffer.after(0)))
    assert [e.id for e in events] == ["p7.1", "p7.2"]
    assert [parse_event_id(e.id or "") for e in events] == [("p7", 1), ("p7", 2)]


@pytest.mark.parametrize(("event_id", "parsed"), [
    ("p3.12", ("p3", 12)), ("g.0", ("g", 0)), ("a.b.5", ("a.b", 5)),
    ("", None), ("p3", None), (".5", None), ("p3.x", None), ("p3.-1", None),
])
def test_parse_event_id(event_id: str, parsed: tuple[str, int] | None) -> None:
    assert parse_event_id(event_id) == parsed


def test_a_get_resumes_the_stream_its_last_event_id_names() -> None:
    streams = {GET_KEY: ReplayBuffer(GET_KEY, 60.0), "p1": ReplayBuffer("p1", 60.0)}
    assert resume_target("p1.4", streams) == Resume("p1", 4, post=True)
    assert resume_target("g.9", streams) == Resume(GET_KEY, 9, post=False)
    assert resume_target("p2.1", streams) is None  # unknown or swept: a fresh GET stream
    assert resume_target(None, streams) is None and resume_target("junk", streams) is None


def test_accept() -> None:
    assert accepts_event_stream("text/event-stream") and accepts_event_stream("application/json, */*")
    assert not accepts_event_stream("application/json") and not accepts_event_stream("")


def test_a_sweep_forgets_expired_post_streams_only_and_names_the_next_threshold() -> None:
    streams = {GET_KEY: ReplayBuffer(GET_KEY, 1.0)}
    streams[GET_KEY].end(0.0)  # even closed, the GET stream stays
    for n in range(SWEEP_MIN + 10):
        stream = streams[f"p{n}"] = ReplayBuffer(f"p{n}", 1.0)
        if n % 2:
            stream.end(0.0)
    threshold = sweep(streams, now=5.0)
    assert GET_KEY in streams and all(not s.closed for k, s in streams.items() if k != GET_KEY)
    assert len(streams) == 1 + (SWEEP_MIN + 10) // 2 and threshold == 2 * len(streams) > SWEEP_MIN
    assert sweep({GET_KEY: streams[GET_KEY]}, now=5.0) == SWEEP_MIN


def test_calls_that_may_run_long_are_held_then_primed() -> None:
    assert all(may_run_long(m) for m in ("tools/call", "prompts/get", "resources/read"))
    assert not may_run_long("tools/list") and not may_run_long("ping")
    assert 0 < PRIME_HOLD < 1 and SSE_RETRY_MS > 0


def test_a_one_answer_stream_is_its_event_or_the_error_of_a_cancelled_request() -> None:
    answered = ReplayBuffer("p1", 60.0)
    answered.append({"jsonrpc": "2.0", "id": 4, "result": {}}, 0.0)
    assert jsonrpc.loads(answered.single_answer(4)) == {"jsonrpc": "2.0", "id": 4, "result": {}}
    cancelled = ReplayBuffer("p2", 60.0)
    cancelled.end(0.0)
    error = jsonrpc.loads(cancelled.single_answer(5))
    assert error["id"] == 5 and error["error"]["message"] == "Request cancelled"
    assert failed_request(6)["error"] == {"code": -32603, "message": "Internal error"}
    assert "id" not in NOT_ACCEPTABLE and NOT_ACCEPTABLE["error"]["code"] == -32600
    for frame in (error, failed_request(6), NOT_ACCEPTABLE):
        spec.legacy("JSONRPCErrorResponse", frame)


def test_the_get_watch_lingers_after_the_last_stream_and_only_then_drops_list_changes() -> None:
    watch = GetWatch()
    assert watch.attach() and not watch.attach()  # the first GET turns list changes on, a second changes nothing
    assert not watch.detach() and watch.detach()  # the last one to end starts the linger
    watch.linger(now=10.0)
    assert watch.idle_since(subscribed=False) == 10.0 and watch.idle_since(subscribed=True) is None
    assert watch.attach() and watch.lingering_since is None  # back within the linger: nothing to drop
    assert not watch.stop_lingering()
    watch.detach()
    watch.linger(now=20.0)
    assert watch.stop_lingering() and not watch.stop_lingering()  # dropped once
    assert watch.idle_since(subscribed=False) is None

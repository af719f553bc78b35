"""translate.legacy_client.streams.EndedStream: an ended POST stream kept compact for ``Last-Event-ID`` replay
(issue #33, acceptance 3) replays exactly what the live ``ReplayBuffer`` would have (a differential test), takes the
live stream's place in the byte ledgers, and is dropped for space or time as the live one was."""

from __future__ import annotations

import random

import pytest

from mcp_eras.bridge.translate.legacy_client.streams import (
    GET_KEY,
    EndedStream,
    ReplayBuffer,
    ReplayLedger,
    archive,
    shed,
    sweep,
)
from mcp_eras.bridge.translate.sse import SseParser


def note(n: int, pad: int = 0) -> dict[str, object]:
    return {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": n, "message": "m" * pad}}


def live(key: str, events: int, ledgers: tuple[ReplayLedger, ...] = (), drop: int = 0, pad: int = 0) -> ReplayBuffer:
    stream = ReplayBuffer(key, 60.0, ledgers)
    stream.request_id = 7
    for n in range(1, events + 1):
        stream.append(note(n, pad), now=float(n))
    stream.drop_through(drop)
    stream.end(now=float(events))
    return stream


@pytest.mark.parametrize("seed", range(40))
def test_replay_after_every_cursor_equals_the_live_streams(seed: int) -> None:
    r = random.Random(seed)
    events = r.randrange(0, 6)
    drop = r.randrange(0, events + 1)
    pad = r.choice([0, 3, 700])
    reference = live("p3", events, drop=drop, pad=pad)
    ended = EndedStream(live("p3", events, drop=drop, pad=pad))
    for cursor in range(events + 2):
        assert ended.replay(cursor) == reference.frames(reference.after(cursor)), cursor
        assert ended.has_after(cursor) == reference.has_after(cursor), cursor
        assert ended.lost_after(cursor) == reference.lost_after(cursor), cursor
    assert (ended.key, ended.seq, ended.request_id, ended.retention) == ("p3", events, 7, 60.0)


def test_replayed_bytes_parse_as_the_events_with_their_ids() -> None:
    ended = EndedStream(live("p12", 3))
    parser = SseParser()
    got = parser.feed(ended.replay(1))
    assert [e.id for e in got] == ["p12.2", "p12.3"]
    assert ended.replay(3) == b"" and ended.replay(0).startswith(b"id: p12.1\n")


def test_the_buffer_takes_the_streams_place_in_the_ledgers_and_leaves_them_when_dropped() -> None:
    session, process = ReplayLedger(1 << 20), ReplayLedger(1 << 30)
    stream = live("p1", 3, (session, process))
    before = session.bytes
    ended = EndedStream(stream)
    assert session.live == process.live == 1 and not stream.events
    assert session.bytes > 0 and abs(session.bytes - before) <= 3 * 512 + 200  # one record instead of three
    assert ended.drop_through(3) == 1 and session.bytes == session.live == process.live == 0
    assert ended.lost_after(0) and ended.replay(0) == b""


def test_a_ledger_past_its_limit_drops_delivered_buffers_but_not_an_undelivered_one() -> None:
    ledger = ReplayLedger(4000)
    delivered = live("p1", 2, (ledger,), pad=1000)
    delivered.after(0)  # a consumer took both events
    undelivered = live("p2", 2, (ledger,), pad=1000)
    first, second = EndedStream(delivered), EndedStream(undelivered)
    live("p3", 2, (ledger,), pad=1000).after(0)
    assert first.kept is None and first.lost_after(0)
    assert second.kept is not None and second.replay(0)


def test_archive_replaces_only_an_ended_unread_post_stream_still_in_the_table() -> None:
    table: dict[str, ReplayBuffer | EndedStream] = {}
    open_stream = ReplayBuffer("p1", 60.0)
    table["p1"] = open_stream
    archive(table, open_stream)
    assert table["p1"] is open_stream  # not ended
    open_stream.end(0.0)
    open_stream.consumers = 1
    archive(table, open_stream)
    assert table["p1"] is open_stream  # still read
    open_stream.consumers = 0
    archive(table, open_stream)
    assert isinstance(table["p1"], EndedStream)
    gone = live("p2", 1)
    archive(table, gone)
    assert "p2" not in table  # forgotten already (shed, swept, answered as JSON): not brought back
    get = live(GET_KEY, 1)
    table[GET_KEY] = get
    archive(table, get)
    assert table[GET_KEY] is get


def test_sweep_and_shed_treat_ended_buffers_as_ended_streams() -> None:
    table: dict[str, ReplayBuffer | EndedStream] = {GET_KEY: ReplayBuffer(GET_KEY, 60.0)}
    for n in range(1, 5):
        table[f"p{n}"] = EndedStream(live(f"p{n}", 1))
    shed(table, 3)
    assert list(table) == [GET_KEY, "p3", "p4"]
    sweep(table, now=200.0)  # closed at 1.0, retention 60 s
    assert list(table) == [GET_KEY]

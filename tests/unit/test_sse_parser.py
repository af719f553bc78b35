"""translate.sse.SseParser / bridge.sse.sse_events: the bytes-level event stream parser of the HTTP upstreams (WHATWG HTML
§9.2.6), fed whole, split at every byte boundary and byte by byte, with every line ending."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from mcp_eras.bridge import sse as shell
from mcp_eras.bridge.sse import ResponseEvents, iter_sse, sse_events
from mcp_eras.bridge.translate.sse import EventTooLarge, SseEvent, SseParser, sse_event, sse_priming

STREAM = (b": keep-alive\n\n" + sse_priming("ev-1", 1500) + b"event: message\ndata: {\"a\":1}\n\n"
          + b"data: line one\ndata:line two\ndata\n\n" + sse_event({"jsonrpc": "2.0", "method": "x"}, "ev-2")
          + "data: \u00e9\u2603\n\n".encode() + b"id\n\nevent: endpoint\ndata: /messages/?s=1\n\n")
EVENTS = [
    ("message", "", "ev-1", 1500),
    ("message", '{"a":1}', None, None),
    ("message", "line one\nline two\n", None, None),
    ("message", '{"jsonrpc":"2.0","method":"x"}', "ev-2", None),
    ("message", "\u00e9\u2603", None, None),
    ("message", "", "", None),
    ("endpoint", "/messages/?s=1", None, None),
]


def parse(pieces: list[bytes], parser: SseParser | None = None) -> list[tuple[str, str, str | None, int | None]]:
    parser = parser or SseParser()
    events: list[SseEvent] = []
    for piece in pieces:
        events += parser.feed(piece)
    events += parser.end()
    return [(e.event, e.data, e.id, e.retry) for e in events]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending(eol: bytes) -> None:
    assert parse([STREAM.replace(b"\n", eol)]) == EVENTS


@pytest.mark.parametrize("eol", [b"\n", b"\r\n", b"\r"])
def test_split_at_every_byte_boundary(eol: bytes) -> None:
    wire = STREAM.replace(b"\n", eol)
    for cut in range(1, len(wire)):
        assert parse([wire[:cut], wire[cut:]]) == EVENTS, cut


def test_byte_by_byte_with_crlf() -> None:
    wire = STREAM.replace(b"\n", b"\r\n")
    assert parse([wire[i:i + 1] for i in range(len(wire))]) == EVENTS


def test_mixed_line_endings_and_a_cr_held_across_chunks() -> None:
    assert parse([b"data: a\r", b"\ndata: b\r", b"\r", b"data: c\n\r\n"]) == [("message", "a\nb", None, None),
                                                                            ("message", "c", None, None)]


def test_an_unterminated_last_event_is_kept_and_a_lone_id_is_not() -> None:
    assert parse([b"data: tail\r"]) == [("message", "tail", None, None)]
    assert parse([b"id: 7"]) == []


def test_retry_takes_digits_only_and_unknown_fields_are_ignored() -> None:
    assert parse([b"retry: 1x\nfoo: bar\ndata: d\n\n"]) == [("message", "d", None, None)]


def test_a_line_over_the_cap_is_a_named_error() -> None:
    parser = SseParser(max_event=64)
    parser.feed(b"data: " + b"x" * 50)
    with pytest.raises(EventTooLarge):
        parser.feed(b"x" * 20)


def test_an_event_over_the_cap_is_a_named_error() -> None:
    parser = SseParser(max_event=64)
    with pytest.raises(EventTooLarge):
        parser.feed(b"data: 0123456789\n" * 8)


def test_the_upstream_shell_names_the_transport_error_for_an_oversized_event() -> None:
    """The pure parser raises its own error; read through the shell it is an httpx protocol error, so the upstream
    abandons the response like any other broken one."""

    async def body() -> AsyncIterator[bytes]:
        yield b"data: " + b"x" * 20 + b"\n\n"

    async def read() -> list[SseEvent]:
        return [e async for e in sse_events(body(), max_event=16)]

    with pytest.raises(httpx.RemoteProtocolError) as err:
        asyncio.run(read())
    assert isinstance(err.value, shell.EventTooLarge) and isinstance(err.value, EventTooLarge)
    assert not issubclass(EventTooLarge, httpx.HTTPError)


WHOLE = [  # chunks an upstream may write as one piece: the whole-event shortcut must dispatch what the lines would
    b'event: message\r\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\r\n\r\n',  # an SDK server's answer
    b'event: message\ndata: {"a":1}\n\n',
    b"event: message\r\ndata:  two spaces\r\n\r\n",  # one space is dropped, the second kept
    b"event: message\r\ndata: \r\n\r\n",  # empty data is still an event
    b"event: message\r\ndata: a\r\ndata: b\r\n\r\n",  # two data lines
    b"event: message\r\ndata: a\rb\r\n\r\n",  # a bare CR ends a line
    b"event: message\r\ndata: a\r\n\r\n\r\n",  # a blank line more
    b"event: message\r\ndata: a\r\n\r\nevent: message\r\ndata: b\r\n\r\n",  # two events
    b"event: message\r\ndata: a\r\n",  # not ended yet
    b"event: message\nid: 3\ndata: a\n\n",
    b"event: message\r\ndata: " + "\u00e9".encode() + b"\r\n\r\n",
]


@pytest.mark.parametrize("chunk", WHOLE)
def test_a_whole_event_in_one_chunk_parses_as_its_bytes_one_by_one(chunk: bytes) -> None:
    # byte by byte, every piece but the first goes through the line parser with something pending
    assert parse([chunk]) == parse([chunk[i:i + 1] for i in range(len(chunk))])


def test_a_whole_event_after_a_partial_one_is_not_taken_alone() -> None:
    parser = SseParser()
    assert parser.feed(b"id: 9\r\n") == []
    [event] = parser.feed(b"event: message\r\ndata: a\r\n\r\n")
    assert (event.data, event.id) == ("a", "9")


def test_a_whole_event_over_the_cap_is_a_named_error() -> None:
    with pytest.raises(EventTooLarge):
        SseParser(max_event=16).feed(b"event: message\r\ndata: " + b"x" * 16 + b"\r\n\r\n")
    assert parse([b"event: message\r\ndata: " + b"x" * 15 + b"\r\n\r\n"], SseParser(max_event=16)) == [
        ("message", "x" * 15, None, None)]


def test_the_line_parser_and_the_bytes_parser_agree() -> None:
    async def lines() -> AsyncIterator[str]:
        for line in STREAM.decode().split("\n"):
            yield line

    async def chunks() -> AsyncIterator[bytes]:
        yield STREAM[:20]
        yield STREAM[20:]

    async def both() -> tuple[list[SseEvent], list[SseEvent]]:
        return [e async for e in iter_sse(lines())], [e async for e in sse_events(chunks())]

    by_line, by_bytes = asyncio.run(both())
    assert by_line == by_bytes
    assert [(e.event, e.data, e.id, e.retry) for e in by_bytes] == EVENTS


class PartReader:
    """A response read a part at a time (as ``lean_http.LeanResponse.read_some``): b"" once it is over."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = list(parts)
        self.reads = 0

    async def read_some(self) -> bytes:
        self.reads += 1
        return self.parts.pop(0) if self.parts else b""


class ChunkStream:
    """Any other response: its ``aiter_bytes`` (an empty chunk in the middle is not the end)."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.closed = False

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        try:
            for part in self.parts:
                yield part
        finally:
            self.closed = True


async def read_all(events: ResponseEvents) -> list[tuple[str, str, str | None, int | None]]:
    out: list[SseEvent] = []
    while (batch := await events.next()) is not None:
        out += batch
    assert await events.next() is None  # over stays over
    return [(e.event, e.data, e.id, e.retry) for e in out]


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
def test_a_response_read_by_parts_gives_the_events_of_the_whole(eol: bytes) -> None:
    wire = STREAM.replace(b"\n", eol)
    for cut in range(1, len(wire), 7):
        parts = [wire[:cut], wire[cut:]]
        reader = PartReader(parts)
        assert asyncio.run(read_all(ResponseEvents(reader))) == EVENTS, cut
        assert reader.reads == 3  # two parts, then the end
        assert asyncio.run(read_all(ResponseEvents(ChunkStream([parts[0], b"", parts[1]])))) == EVENTS, cut


def test_a_response_left_early_is_closed() -> None:
    async def first_then_close() -> tuple[list[SseEvent], ChunkStream]:
        stream = ChunkStream([sse_event({"a": 1}), sse_event({"b": 2})])
        events = ResponseEvents(stream)
        first = await events.next()
        await events.aclose()
        assert await events.next() is None
        return first or [], stream

    first, stream = asyncio.run(first_then_close())
    assert [e.data for e in first] == ['{"a":1}'] and stream.closed

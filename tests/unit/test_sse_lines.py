"""bridge.sse.sse_lines (over translate.sse.LineSplitter): the byte-level line splitter in front of iter_sse (HTTP upstream responses)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from mcp_eras.bridge.sse import iter_sse, sse_lines
from mcp_eras.bridge.translate.sse import LineSplitter


async def _chunks(parts: list[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def lines(parts: list[bytes]) -> list[str]:
    async def collect() -> list[str]:
        return [line async for line in sse_lines(_chunks(parts))]

    return asyncio.run(collect())


@pytest.mark.parametrize("parts", [
    [b"event: message\ndata: {}\n\n"],
    [b"event: message\r\ndata: {}\r\n\r\n"],
    [b"event: message\rdata: {}\r\r"],
    [b"event: mes", b"sage\r", b"\ndata: {}\r", b"\n\r", b"\n"],
    [b"event: message\n", b"data: {}\n", b"\n"],
])
def test_every_line_ending_and_chunking_gives_the_same_lines(parts: list[bytes]) -> None:
    assert lines(parts) == ["event: message", "data: {}", ""]


def test_a_lone_cr_at_a_chunk_end_is_a_line_end_when_no_lf_follows() -> None:
    assert lines([b"a\r", b"b\n"]) == ["a", "b"]


def test_an_unterminated_last_line_is_still_yielded_and_utf8_is_decoded_per_line() -> None:
    assert lines(["data: é\n".encode(), "data: ü".encode()]) == ["data: é", "data: ü"]


def test_a_multibyte_character_split_across_chunks_survives() -> None:
    raw = "data: ☃\n".encode()
    assert lines([raw[:7], raw[7:]]) == ["data: ☃"]


def test_iter_sse_over_sse_lines() -> None:
    async def events() -> list[tuple[str, str, str | None]]:
        return [(e.event, e.data, e.id) async for e in iter_sse(sse_lines(_chunks([b"id: 1\r\nda", b"ta: {\"a\":1}\r\n\r\n: ping\n\n"])))]

    assert asyncio.run(events()) == [("message", '{"a":1}', "1")]


def test_the_pure_splitter_holds_a_cr_until_the_next_chunk_shows_what_follows() -> None:
    """``translate.sse.LineSplitter``, the sans-I/O core of ``sse_lines`` (WHATWG HTML §9.2.5: CRLF, LF or CR)."""
    splitter = LineSplitter()
    assert splitter.feed(b"a\r") == []  # maybe the first half of a CRLF
    assert splitter.feed(b"\nb\rc") == ["a", "b"]
    assert splitter.feed(b"\r") == []
    assert splitter.end() == ["c"]  # a held CR at the very end ends its line
    assert splitter.end() == []
    assert LineSplitter().feed(b"x\n\ny") == ["x", ""]

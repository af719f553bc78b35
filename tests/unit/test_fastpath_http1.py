"""bridge.translate.http1: the HTTP/1.1 response head, body framing and chunked decoding of the lean
upstream client (RFC 9112 §4-§7), fed the way a socket delivers bytes: whole, split at every boundary, byte
by byte."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate.http1 import (
    MAX_CHUNK_LINE,
    MAX_HEAD,
    Dechunker,
    HeadCache,
    HeadTooLarge,
    ProtocolError,
    framing,
    parse_head,
)

CHUNKED = b"5\r\nhello\r\n1;ext=1\r\n \r\n10\r\n" + b"0123456789abcdef" + b"\r\n0\r\nx-trailer: 1\r\n\r\n"
BODY = b"hello " + b"0123456789abcdef"
NEXT = b"HTTP/1.1 200 OK\r\n"  # the next response on the connection: never part of this body


def dechunk(pieces: list[bytes]) -> tuple[list[bytes], bool, bytes]:
    """Feed pieces as they would arrive; (data returned, done, bytes left in the buffer)."""
    decoder, buf, out = Dechunker(), bytearray(), []
    for piece in pieces:
        buf += piece
        while data := decoder.feed(buf):
            out.append(data)
    return out, decoder.done, bytes(buf)


def test_chunked_body_whole() -> None:
    out, done, rest = dechunk([CHUNKED + NEXT])
    assert (out, done, rest) == ([b"hello", b" ", b"0123456789abcdef"], True, NEXT)


@pytest.mark.parametrize("cut", range(1, len(CHUNKED)))
def test_chunked_body_split_at_every_byte_boundary(cut: int) -> None:
    out, done, rest = dechunk([CHUNKED[:cut], CHUNKED[cut:] + NEXT])
    assert (b"".join(out), done, rest) == (BODY, True, NEXT)


def test_chunked_body_byte_by_byte() -> None:
    out, done, rest = dechunk([bytes([b]) for b in CHUNKED])
    assert (b"".join(out), done, rest) == (BODY, True, b"")


def test_chunked_data_comes_out_before_its_chunk_is_complete() -> None:
    decoder, buf = Dechunker(), bytearray(b"a\r\n01234")
    assert decoder.feed(buf) == b"01234" and not decoder.done
    buf += b"56789\r\n0\r\n\r\n"
    assert decoder.feed(buf) == b"56789"
    assert decoder.feed(buf) == b"" and decoder.done


@pytest.mark.parametrize("size", [b"0x5", b"+5", b"-5", b"zz", b"", b"1_0", b"1234567890abcdef0"])
def test_malformed_chunk_sizes_are_refused(size: bytes) -> None:
    with pytest.raises(ProtocolError, match="chunk size"):
        Dechunker().feed(bytearray(size + b"\r\nhello\r\n"))


def test_a_chunk_not_ended_by_crlf_is_refused() -> None:
    decoder, buf = Dechunker(), bytearray(b"5\r\nhelloXY0\r\n\r\n")
    assert decoder.feed(buf) == b"hello"
    with pytest.raises(ProtocolError, match="chunk end"):
        decoder.feed(buf)


def test_a_chunk_size_line_without_end_is_capped() -> None:
    decoder = Dechunker()
    assert decoder.feed(bytearray(b"5" + b" " * (MAX_CHUNK_LINE - 10))) == b""  # may still end
    with pytest.raises(ProtocolError, match="too long"):
        decoder.feed(bytearray(b"5" + b" " * MAX_CHUNK_LINE))


def test_trailers_are_capped_with_a_named_error() -> None:
    decoder = Dechunker()
    with pytest.raises(HeadTooLarge):
        decoder.feed(bytearray(b"0\r\n" + b"x-filler: 1234567\r\n" * (MAX_HEAD // 19 + 1)))
    with pytest.raises(HeadTooLarge):
        Dechunker().feed(bytearray(b"0\r\nx-filler: " + b"x" * MAX_HEAD))


def test_parse_head() -> None:
    raw = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-A: 1\r\nx-a: 2\r\nMcp-Session-Id:  s1 \r\n"
           b"Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Empty:\r\nX-Name: \xc3\xa9\r\nX-Colon: a:b")
    status, keep_alive, headers, cookies = parse_head(raw)
    assert (status, keep_alive, cookies) == (200, True, ["a=1", "b=2"])
    assert headers == {"content-type": "text/event-stream", "x-a": "1, 2", "mcp-session-id": "s1",
                       "set-cookie": "a=1, b=2", "x-empty": "", "x-name": "é", "x-colon": "a:b"}
    assert parse_head(b"HTTP/1.1 204\r\nX-Latin: \xe9")[2] == {"x-latin": "é"}  # not UTF-8: Latin-1


def test_the_head_cache_answers_as_parse_head_with_a_copy_each_time_and_stays_bounded() -> None:
    cache = HeadCache(size=2, max_bytes=200)
    raw = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nSet-Cookie: a=1\r\nMcp-Session-Id: s1"
    first = cache.parse(raw)
    assert first == parse_head(raw)
    first[2]["content-type"] = "changed by a caller"
    first[3].append("b=2")
    assert cache.parse(raw) == parse_head(raw)  # what a caller does to its copy is not remembered
    with pytest.raises(ProtocolError, match="malformed"):
        cache.parse(b"HTTP/1.1 200 OK\r\n folded")
    for n in range(5):  # distinct heads (a new Date each second): the oldest go
        cache.parse(b"HTTP/1.1 200 OK\r\nDate: %d" % n)
    assert len(cache._heads) == 2 and raw not in cache._heads  # noqa: SLF001 - the bound is the point
    big = b"HTTP/1.1 200 OK\r\nX-Big: " + b"x" * 300
    assert cache.parse(big) == parse_head(big) and big not in cache._heads  # noqa: SLF001


@pytest.mark.parametrize(("raw", "keep_alive"), [
    (b"HTTP/1.1 200 OK", True),
    (b"HTTP/1.1 200 OK\r\nConnection: close", False),
    (b"HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close", False),
    (b"HTTP/1.0 200 OK", False),
    (b"HTTP/1.0 200 OK\r\nConnection: keep-alive", True),
])
def test_keep_alive(raw: bytes, keep_alive: bool) -> None:
    assert parse_head(raw)[1] is keep_alive


@pytest.mark.parametrize("raw", [
    b"SPDY/9 banana", b"HTTP/1.1 2000 OK", b"HTTP/1.1 20 OK", b"HTTP/2 200 OK", b"HTTP/1.1 2x0 OK", b"HTTP/1.1 200OK",
    b"HTTP/1.1 200 OK\r\nno colon here", b"HTTP/1.1 200 OK\r\n: no name", b"HTTP/1.1 200 OK\r\nX-A: 1\r\n folded",
])
def test_malformed_heads_are_refused(raw: bytes) -> None:
    with pytest.raises(ProtocolError, match="malformed"):
        parse_head(raw)


@pytest.mark.parametrize(("status", "headers", "expected"), [
    (200, {"content-length": "12"}, ("length", 12)),
    (200, {"content-length": "12, 12"}, ("length", 12)),
    (200, {}, ("eof", None)),
    (204, {"content-length": "12"}, ("length", 0)),
    (304, {"transfer-encoding": "chunked"}, ("length", 0)),
    (200, {"transfer-encoding": "chunked", "content-length": "12"}, ("chunked", None)),
    (200, {"transfer-encoding": "Chunked"}, ("chunked", None)),  # (a coding under chunked: test_request_framing)
    (200, {"transfer-encoding": "gzip"}, ("eof", None)),
])
def test_framing(status: int, headers: dict[str, str], expected: tuple[str, int | None]) -> None:
    chunks, length = framing(status, headers)
    kind = "chunked" if chunks is not None else "eof" if length is None else "length"
    assert (kind, length) == expected


@pytest.mark.parametrize("length", ["12, 13", "-1", "1e3", "", "١٢"])
def test_invalid_content_length_is_refused(length: str) -> None:
    with pytest.raises(ProtocolError, match="Content-Length"):
        framing(200, {"content-length": length})

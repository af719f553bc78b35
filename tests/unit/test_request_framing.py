"""translate.http1.RequestFraming: a connection's request stream followed however its bytes are split, each request's
end found (Content-Length, chunked with extensions and trailers), and a refusal placed at the request it concerns."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate.http1 import RequestFraming, request_framing

BODY = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
WITH_LENGTH = b"POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
CHUNKED = (b"POST /mcp HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"5;name=value\r\n" + BODY[:5] + b"\r\n%x\r\n%s\r\n0\r\nTrailer: x\r\n\r\n" % (len(BODY) - 5, BODY[5:]))
GET = b"\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"  # (an empty line before a request line is allowed)
STREAM = WITH_LENGTH + CHUNKED + GET + WITH_LENGTH
BAD = b"POST /mcp HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"


@pytest.mark.parametrize("piece", [1, 2, 3, 7, 64, len(STREAM)])
def test_a_well_framed_stream_passes_however_it_is_split(piece: int) -> None:
    ends = {len(WITH_LENGTH), len(WITH_LENGTH + CHUNKED), len(WITH_LENGTH + CHUNKED + GET), len(STREAM)}
    inside = {len(WITH_LENGTH) - 1, len(WITH_LENGTH + CHUNKED) - 1, len(STREAM) - 2}
    framing = RequestFraming(1024)
    for at in range(0, len(STREAM), piece):
        assert framing.feed(STREAM[at:at + piece]) is None
        end = min(at + piece, len(STREAM))
        assert framing.between_requests if end in ends else not framing.between_requests if end in inside else True
    assert framing.between_requests


def test_mid_request_is_not_between_requests() -> None:
    framing = RequestFraming(1024)
    assert framing.feed(WITH_LENGTH[:-1]) is None and not framing.between_requests
    assert framing.feed(WITH_LENGTH[-1:]) is None and framing.between_requests
    assert framing.feed(b"POST") is None and not framing.between_requests


def test_a_refusal_names_the_offset_of_its_request() -> None:
    framing = RequestFraming(1024)
    assert framing.feed(WITH_LENGTH + BAD) == (len(WITH_LENGTH), False, (400, "Bad Request: both Content-Length and "
                                                                             "Transfer-Encoding"))
    framing = RequestFraming(1024)
    assert framing.feed(BAD[:20]) is None
    offset, begun, (status, _why) = framing.feed(BAD[20:])  # type: ignore[misc]
    assert (offset, begun, status) == (0, True, 400)


def test_a_chunk_past_the_cap_is_refused_on_its_size_line() -> None:
    framing = RequestFraming(100)
    head = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    assert framing.feed(head + b"32\r\n" + b"x" * 50 + b"\r\n") is None  # 50 of 100
    offset, begun, (status, _why) = framing.feed(b"33\r\n")  # type: ignore[misc]  # 51 more: 101
    assert (offset, begun, status) == (0, True, 413)


@pytest.mark.parametrize(("head", "framing"), [
    (b"GET / HTTP/1.1\r\nHost: a", 0),
    (b"POST / HTTP/1.1\r\ncontent-length:  12 ", 12),
    (b"POST / HTTP/1.1\r\nX-Content-Length: 5\r\nContent-Length: 7", 7),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: Chunked", -1),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: ,chunked", -1),
    (b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked", 400),
    (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1", 400),
    (b"POST / HTTP/1.1\r\nContent-Length: 0x10", 400),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: br, chunked", 501),
])
def test_request_heads(head: bytes, framing: int) -> None:
    got = request_framing(head)
    assert (got[0] if isinstance(got, tuple) else got) == framing


@pytest.mark.parametrize(("coding", "framed"), [
    ("chunked", "chunked"), ("Chunked", "chunked"), (" chunked ,", "chunked"),
    ("xchunked", "to the close"), ("chunked, gzip", "to the close"), ("identity", "to the close"),
    ("gzip, chunked", "refused"), ("chunked, chunked", "refused"),
])
def test_upstream_response_codings(coding: str, framed: str) -> None:
    """The upstream client's side (RFC 9112 §6.3 item 4): only a final chunked frames a response body by chunks."""
    from mcp_eras.bridge.translate.http1 import Dechunker, ProtocolError, framing

    try:
        chunks, length = framing(200, {"transfer-encoding": coding})
    except ProtocolError:
        assert framed == "refused"
        return
    assert framed == ("chunked" if isinstance(chunks, Dechunker) else "to the close") and length is None


def test_an_upstream_response_with_both_lengths_ends_its_connection() -> None:
    from mcp_eras.bridge.translate.http1 import parse_head

    _status, keep_alive, _fields, _cookies = parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked")
    assert not keep_alive
    assert parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: 5")[1]


@pytest.mark.parametrize(("head", "length"), [
    (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5", 5),
    (b"POST / HTTP/1.1\r\ncontent-length:5 \r\nHost: a", 5),
    (b"POST / HTTP/1.1\r\nCONTENT-LENGTH: 5", None),  # (measured by request_framing instead)
    (b"POST / HTTP/1.1\r\nX-Content-Length: 5", None),
    (b"POST / HTTP/1.1\r\nX: a Content-Length: 5", None),
    (b"POST / HTTP/1.1\r\nContent-Length: +5", None),
])
def test_declared_length_of_a_plain_head(head: bytes, length: int | None) -> None:
    from mcp_eras.bridge.translate.http1 import declared_length

    assert declared_length(head + b"\r\n\r\nbody", len(head)) == length


@pytest.mark.parametrize("strict", [False, True])
def test_a_strict_parsers_stream_is_followed_too(strict: bool) -> None:
    framing = RequestFraming(1024, parser_is_strict=strict)
    for at in range(0, len(STREAM), 5):
        assert framing.feed(STREAM[at:at + 5]) is None
    assert framing.between_requests
    assert framing.feed(WITH_LENGTH) is None and framing.between_requests
    assert framing.feed(WITH_LENGTH[:-3]) is None and not framing.between_requests

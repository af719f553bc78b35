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

"""Differential: the lean HTTP/1.1 POST (``lean_http.post``) against the path it shortcuts (httpx's
``client.stream`` on the same kind of upstream client), on the same raw responses from a loopback server.

Each response is served to both paths on fresh clients; what an upstream reads of it must be the same: the
status, every header (lower-cased names, repeated fields joined as ``httpx.Headers.get`` joins them), the body read
whole and read as a stream, and for a broken response the same kind of httpx error. Cases cover each way a body
ends (RFC 9112 §6.3: Content-Length, chunked, the connection's end), event streams, ``Connection: close``, interim
responses, repeated and Latin-1 fields, and malformed or oversized heads and bodies.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from mcp_eras.bridge.upstream import lean_http
from mcp_eras.bridge.upstream.http_pool import upstream_client

pytestmark = pytest.mark.anyio
LOOPS: list[Any] = ["asyncio"] + ([("asyncio", {"use_uvloop": True})] if importlib.util.find_spec("uvloop") else [])
TIMEOUT = httpx.Timeout(10.0)
REQUEST = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}'
SSE = b"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\r\n"

CASES: dict[str, tuple[bytes, bool]] = {
    # name: (the raw response, whether the server closes the connection after it)
    "content-length": (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}", False),
    "empty 202": (b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n", False),
    "204 with no framing": (b"HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n", False),
    "chunked, extensions, trailers": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                      b"5\r\nhello\r\n1;ext=1\r\n \r\n6\r\nworld!\r\n0\r\nx-trailer: 1\r\n\r\n", False),
    "sse, chunked": (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n%s\r\n" % (len(SSE), SSE) * 3 + b"0\r\n\r\n", False),
    "sse to the connection's end": (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                                    + SSE * 2, True),
    "connection: close with a length": (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}", True),
    "http/1.0 to the end": (b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{\"a\":1}", True),
    "interim 100 first": (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", False),
    "error status with a body": (b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nnot found", False),
    "repeated fields": (b"HTTP/1.1 200 OK\r\nX-Multi: a\r\nx-multi: b\r\nVary: accept\r\nContent-Length: 0\r\n\r\n", False),
    "field whitespace": (b"HTTP/1.1 200 OK\r\nX-Pad:   padded \t\r\nContent-Length: 0\r\n\r\n", False),
    "latin-1 field": (b"HTTP/1.1 200 OK\r\nX-Latin: caf\xe9\r\nContent-Length: 0\r\n\r\n", False),
    "utf-8 field": (b"HTTP/1.1 200 OK\r\nX-Utf8: caf\xc3\xa9\r\nContent-Length: 0\r\n\r\n", False),
    "identical repeated length": (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}", False),
    "identical lengths in one field": (b"HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\n{}", False),
    "chunked and a length": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 99\r\n\r\n"
                             b"2\r\n{}\r\n0\r\n\r\n", True),
    "bytes after the body": (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}EXTRA", True),
    "set-cookie": (b"HTTP/1.1 200 OK\r\nSet-Cookie: a=1; Path=/\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n", False),
    # broken answers: the same kind of error on both paths
    "no response at all": (b"", True),
    "status line not http": (b"HTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", True),
    "status code not a number": (b"HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", True),
    "header line without a colon": (b"HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: 0\r\n\r\n", True),
    "obsolete line folding": (b"HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n", True),
    "length not a number": (b"HTTP/1.1 200 OK\r\nContent-Length: ten\r\n\r\n0123456789", True),
    "conflicting lengths": (b"HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\n{}x", True),
    "body cut short": (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234", True),
    "head cut short": (b"HTTP/1.1 200 OK\r\nContent-Le", True),
    "chunk size not hex": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", True),
    "chunk without its end": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXY0\r\n\r\n", True),
    "chunked body cut short": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", True),
    "oversized head": (b"HTTP/1.1 200 OK\r\n" + b"x-filler: 0123456789abcdef\r\n" * 8000 + b"Content-Length: 0\r\n\r\n", True),
}

DIFFERENT = {
    # The one deliberate difference. httpx (h11) is a user agent and must unfold an obs-fold; the bridge is a gateway,
    # which may instead discard such a response (RFC 9112 §5.2): the lean path refuses it as malformed.
    "obsolete line folding": ("error", "RemoteProtocolError"),
}


@pytest.fixture(params=LOOPS, ids=lambda loop: "uvloop" if isinstance(loop, tuple) else loop)
def anyio_backend(request: pytest.FixtureRequest) -> Any:
    return request.param


@contextlib.asynccontextmanager
async def server(raw: bytes, close: bool) -> AsyncIterator[str]:
    """Answers every request (on any connection) with ``raw``; closes the connection after it when ``close``."""

    async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while not writer.is_closing():
                declared = re.search(rb"\r\ncontent-length: *(\d+)", await reader.readuntil(b"\r\n\r\n"), re.IGNORECASE)
                await reader.readexactly(int(declared[1]) if declared else 0)
                writer.write(raw)
                await writer.drain()
                if close:
                    writer.close()
        writer.close()

    async with await asyncio.start_server(run, "127.0.0.1", 0) as srv:
        yield f"http://127.0.0.1:{srv.sockets[0].getsockname()[1]}/mcp"


def kind(exc: BaseException) -> str:
    """The httpx error class an upstream tells apart (``legacy_transport``/``modern`` catch these)."""
    for cls in (httpx.RemoteProtocolError, httpx.ReadError, httpx.ReadTimeout, httpx.DecodingError, httpx.ConnectError):
        if isinstance(exc, cls):
            return cls.__name__
    return type(exc).__name__


def header_view(headers: Any) -> dict[str, str]:
    if isinstance(headers, httpx.Headers):
        return {name: headers[name] for name in headers.keys()}  # noqa: SIM118 - Headers.keys() are lower-cased
    return dict(headers)


async def outcome(lean: bool, url: str, streamed: bool, posts: int) -> list[tuple[Any, ...]]:
    """``posts`` POSTs in turn on a fresh upstream client, by the lean path or by httpx's; what the caller reads of
    each (the second one shows what the first left on a kept-alive connection)."""
    seen: list[tuple[Any, ...]] = []
    async with upstream_client(TIMEOUT, 30.0) as client:
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        for _ in range(posts):
            if lean:
                exchange = lean_http.post(client, url, REQUEST, headers, TIMEOUT)
                assert isinstance(exchange, lean_http._Post)  # noqa: SLF001 - the case really takes the lean path
            else:
                exchange = client.stream("POST", url, content=REQUEST, headers=headers, timeout=TIMEOUT)
            try:
                async with exchange as response:
                    if streamed:
                        body = b"".join([part async for part in response.aiter_bytes()])
                    else:
                        body = await response.aread()
                    seen.append(("answer", response.status_code, header_view(response.headers), body))
            except httpx.HTTPError as exc:
                seen.append(("error", kind(exc)))
    return seen


@pytest.mark.parametrize("streamed", [False, True], ids=["aread", "aiter_bytes"])
@pytest.mark.parametrize("case", list(CASES))
async def test_the_lean_post_reads_what_httpx_reads(case: str, streamed: bool) -> None:
    raw, close = CASES[case]
    posts = 1 if close or b"Set-Cookie" in raw else 2  # (a client holding a cookie leaves the lean path)
    async with server(raw, close) as url:
        expected = await outcome(False, url, streamed, posts)
        got = await outcome(True, url, streamed, posts)
    if case in DIFFERENT:
        assert (got, expected[0][0]) == ([DIFFERENT[case]], "answer")
        return
    assert got == expected, f"{case}: lean {got!r} != httpx {expected!r}"


async def test_after_connection_close_the_next_post_goes_out_on_a_new_connection_on_both_paths() -> None:
    """A ``Connection: close`` answer (RFC 9112 §9.6) followed by a second POST from the same client."""
    raw = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"
    async with server(raw, True) as url:
        seen = []
        for lean in (False, True):
            async with upstream_client(TIMEOUT, 30.0) as client:
                answers = []
                for _ in range(2):
                    exchange = (lean_http.post(client, url, REQUEST, {}, TIMEOUT) if lean
                                else client.stream("POST", url, content=REQUEST, timeout=TIMEOUT))
                    async with exchange as response:
                        answers.append((response.status_code, await response.aread()))
                seen.append(answers)
    assert seen[0] == seen[1] == [(200, b"{}"), (200, b"{}")]

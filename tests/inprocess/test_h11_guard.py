"""The header deadline (bridge.front.h11_guard) on a real uvicorn server on loopback: a client that
trickles its headers is cut off; a complete request is served; a response that outlives the deadline
(an SSE-like stream) is not cut; a keep-alive connection gets a fresh deadline per request."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import live_uvicorn
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, StreamingResponse
from starlette.routing import Route

from mcp_eras.bridge.front.h11_guard import header_timeout_protocol

try:  # mcp-eras[fast]: uvicorn's httptools protocol gets the same deadline
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:
    HttpToolsProtocol = None  # type: ignore[assignment, misc]

pytestmark = pytest.mark.anyio
DEADLINE = 0.3


async def echo(request: Request) -> PlainTextResponse:
    return PlainTextResponse(repr(request.headers["mcp-name"]))


async def ok(request: object) -> PlainTextResponse:
    return PlainTextResponse("ok")


async def slow(request: object) -> StreamingResponse:
    async def body() -> AsyncIterator[bytes]:
        for _ in range(4):
            await asyncio.sleep(DEADLINE)  # the stream outlives the header deadline several times
            yield b"tick\n"
    return StreamingResponse(body(), media_type="text/plain")


@contextlib.asynccontextmanager
async def server(base: type | None) -> AsyncIterator[int]:
    app = Starlette(routes=[Route("/", ok), Route("/slow", slow), Route("/echo", echo)])
    async with live_uvicorn.serving(app, header_timeout_protocol(DEADLINE, base)) as port:
        yield port


async def read_all(reader: asyncio.StreamReader) -> bytes:
    async with asyncio.timeout(10):
        return await reader.read()


@pytest.fixture(params=["h11", "httptools"])
def base(request: pytest.FixtureRequest) -> type:
    from uvicorn.protocols.http.h11_impl import H11Protocol

    if request.param == "h11":
        return H11Protocol
    if HttpToolsProtocol is None:
        pytest.skip("httptools is not installed (mcp-eras[fast])")
    return HttpToolsProtocol


async def test_trickled_headers_are_cut_off(base: type) -> None:
    async with server(base) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        closed = False
        async with asyncio.timeout(10):
            while not closed:  # one more header byte now and then keeps plain keep-alive timers happy
                writer.write(b"X")
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(DEADLINE / 3):
                        closed = await reader.read(1) == b""
        assert closed
        writer.close()


async def test_complete_requests_and_long_responses_are_served(base: type) -> None:
    async with server(base) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head = b""
        async with asyncio.timeout(10):
            while b"0\r\n\r\n" not in head:
                chunk = await reader.read(1024)
                assert chunk, head
                head += chunk
        assert head.startswith(b"HTTP/1.1 200") and head.count(b"tick") == 4
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")  # same connection
        rest = await read_all(reader)
        assert rest.startswith(b"HTTP/1.1 200") and rest.endswith(b"ok")
        writer.close()


async def test_header_values_lose_surrounding_whitespace_on_both_parsers(base: type) -> None:
    """RFC 9112 §5.1: OWS around a field value is not part of it (h11 strips it; llhttp keeps the trailing part)."""
    async with server(base) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Name:  add \t \r\nConnection: close\r\n\r\n")
        answer = await read_all(reader)
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"'add'"), answer
        writer.close()


async def test_each_response_moves_the_deadline_on_a_busy_keep_alive_connection(base: type) -> None:
    """One timer per connection, re-armed lazily: requests spaced well inside the deadline keep the connection
    past several deadlines counted from its opening; once idle, it is closed."""
    deadline, gap = 2.0, 0.5  # a request every quarter deadline: only a 1.5 s stall could fail this
    app = Starlette(routes=[Route("/", ok)])
    async with live_uvicorn.serving(app, header_timeout_protocol(deadline, base)) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(int(2 * deadline / gap) + 1):  # spans two whole deadlines of the first arming
            writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            async with asyncio.timeout(10):
                answer = await reader.readuntil(b"ok")
            assert answer.startswith(b"HTTP/1.1 200"), answer
            await asyncio.sleep(gap)
        assert await read_all(reader) == b""  # idle now: closed at the deadline (read_all gives up after 10 s)
        writer.close()


async def test_a_pipelined_request_served_past_the_deadline_is_not_cut(base: type) -> None:
    """Two requests in one write: the second is parsed while the first is served and starts when it ends; the
    deadline armed by the first response does not close the connection under the second's long answer."""
    async with server(base) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answers = await read_all(reader)
        assert answers.startswith(b"HTTP/1.1 200") and answers.count(b"HTTP/1.1 200") == 2, answers
        assert answers.count(b"tick") == 4 and answers.endswith(b"0\r\n\r\n"), answers
        writer.close()

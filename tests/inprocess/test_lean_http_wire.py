"""bridge.upstream.lean_http on the wire, against loopback servers in this event loop that misbehave on
purpose: heads and bodies over their caps, stalls (read timeouts), event streams that stay open and arrive
in pieces, cancellation, interim responses, header injection, bytes after a body."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from mcp_eras.bridge.sse import sse_events
from mcp_eras.bridge.upstream import lean_http
from mcp_eras.bridge.upstream.http_pool import rpc_extensions, upstream_client

pytestmark = pytest.mark.anyio
LOOPS: list[Any] = ["asyncio"] + ([("asyncio", {"use_uvloop": True})] if importlib.util.find_spec("uvloop") else [])
"""Both event loops when uvloop is installed (mcp-eras[fast]): their transports differ in the details."""
TIMEOUT = httpx.Timeout(10.0)
DEADLINE = 10.0
"""Bound on every wait of these tests (a deadline, not a measured time)."""

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
    return head, await reader.readexactly(length)


@contextlib.asynccontextmanager
async def serve(handler: Handler) -> AsyncIterator[tuple[str, list[int]]]:
    """A server running ``handler`` per connection; yields (url, [connections so far])."""
    count = [0]

    async def run(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        count[0] += 1
        try:
            await handler(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    srv = await asyncio.start_server(run, "127.0.0.1", 0)
    async with srv:
        yield f"http://127.0.0.1:{srv.sockets[0].getsockname()[1]}/mcp", count


@pytest.fixture(params=LOOPS, ids=lambda loop: "uvloop" if isinstance(loop, tuple) else loop)
def anyio_backend(request: pytest.FixtureRequest) -> Any:
    return request.param


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with upstream_client(TIMEOUT, 30.0) as c:
        yield c


def answers(*raw: bytes) -> Handler:
    """Answer each request, on whichever connection, with the next of ``raw``; then read until the client closes."""
    left = list(raw)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while left:
            await read_request(reader)
            writer.write(left.pop(0))
            await writer.drain()
        await reader.read()

    return handler


def idle(client: httpx.AsyncClient) -> int:
    """Connections back in the lean pool."""
    pool = lean_http.lean_pool(client)
    assert pool is not None
    return sum(len(stack) for stack in pool.idle.values())


JSON_OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"


async def test_a_head_over_the_cap_is_a_named_error(client: httpx.AsyncClient) -> None:
    filler = b"HTTP/1.1 200 OK\r\n" + b"x-filler: 0123456789\r\n" * (lean_http.MAX_HEAD // 20)
    async with serve(answers(filler)) as (url, _):
        with pytest.raises(lean_http.HeadTooLarge):
            async with lean_http.post(client, url, b"{}", {}, TIMEOUT):
                pass
    assert idle(client) == 0


async def test_a_body_over_the_limit_is_a_named_error(client: httpx.AsyncClient) -> None:
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n8\r\n01234567\r\n0\r\n\r\n"
    long = b"HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n0123456789abcdef"
    async with serve(answers(long, chunked, JSON_OK)) as (url, count):
        for _ in range(2):
            with pytest.raises(lean_http.BodyTooLarge):
                async with lean_http.post(client, url, b"{}", {}, TIMEOUT) as resp:
                    await resp.aread(limit=10)
        async with lean_http.post(client, url, b"{}", {}, TIMEOUT) as resp:
            assert await resp.aread(limit=2) == b"{}"
    assert count[0] == 3  # an abandoned body closes its connection


async def test_a_stalled_answer_is_a_read_timeout(client: httpx.AsyncClient) -> None:
    short = httpx.Timeout(10.0, read=0.2)
    head_only = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234"
    async with serve(answers(head_only)) as (url, _):
        async with lean_http.post(client, url, b"{}", {}, short) as resp:
            with pytest.raises(httpx.ReadTimeout):
                await resp.aread()
    async with serve(answers()) as (url, _):  # reads nothing, answers nothing
        with pytest.raises(httpx.ReadTimeout):
            async with lean_http.post(client, url, b"{}", {}, short):
                pass


async def test_an_open_event_stream_delivers_each_event_as_it_arrives(client: httpx.AsyncClient) -> None:
    got_first = asyncio.Event()

    async def stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        note = b'event: message\r\ndata: {"method":"notifications/progress"}\r\n\r\n'
        for piece in (b"%x\r\n" % len(note) + note[:20], note[20:41], note[41:] + b"\r\n"):
            writer.write(piece)
            await writer.drain()
        async with asyncio.timeout(DEADLINE):
            await got_first.wait()  # the response comes only after the client saw the notification
        answer = b'data: {"id":1,\ndata: "result":{}}\n\n'
        writer.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(answer), answer))
        await reader.read()

    async with serve(stream) as (url, count):
        seen = []
        async with asyncio.timeout(DEADLINE), lean_http.post(client, url, b"{}", {}, TIMEOUT) as resp:
            async for event in sse_events(resp.aiter_bytes()):
                seen.append(event.data)
                got_first.set()
        assert seen == ['{"method":"notifications/progress"}', '{"id":1,\n"result":{}}']
        assert (count[0], idle(client)) == (1, 1)  # read to its end: the connection went back to the pool


async def test_cancellation_closes_the_connection(client: httpx.AsyncClient) -> None:
    received, closed = asyncio.Event(), asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        received.set()
        if await reader.read() == b"":
            closed.set()

    async with serve(silent) as (url, _):
        async def call() -> None:
            async with lean_http.post(client, url, b"{}", {}, TIMEOUT, rpc_extensions("tools/list")):
                pass

        task = asyncio.create_task(call())
        async with asyncio.timeout(DEADLINE):
            await received.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await closed.wait()
    assert idle(client) == 0


async def test_interim_responses_are_skipped(client: httpx.AsyncClient) -> None:
    early = b"HTTP/1.1 103 Early Hints\r\nLink: </x>; rel=preload\r\n\r\n" + JSON_OK
    async with serve(answers(early, JSON_OK)) as (url, count):
        for _ in range(2):
            async with lean_http.post(client, url, b"{}", {}, TIMEOUT) as resp:
                assert (resp.status_code, await resp.aread()) == (200, b"{}")
    assert count[0] == 1


async def test_line_breaks_in_header_values_are_refused_before_sending(client: httpx.AsyncClient) -> None:
    async with serve(answers(JSON_OK)) as (url, count):
        # (twice each: a refused set of fields is never remembered as formatted, ``_Target.request``)
        for bad in ({"X-Trace": "a\r\nX-Injected: 1"}, {"X-Trace": "a\nb"}, {"X-Bad\r\nX": "1"}, {"X-Name": "\u2603"}) * 2:
            with pytest.raises(httpx.LocalProtocolError):
                async with lean_http.post(client, url, b"{}", bad, TIMEOUT):
                    pass
    assert count[0] == 0


async def test_repeated_names_and_framing_fields_of_the_caller(client: httpx.AsyncClient) -> None:
    heads: list[bytes] = []

    async def record(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heads.append((await read_request(reader))[0])
        writer.write(JSON_OK)
        await reader.read()

    async with serve(record) as (url, _):
        headers = {"Accept": "a", "accept": "b", "Host": "elsewhere", "Content-Length": "99", "User-Agent": "me"}
        async with lean_http.post(client, url, b"{}", headers, TIMEOUT) as resp:
            await resp.aread()
    lines = heads[0].decode().lower().split("\r\n")
    assert [line for line in lines if line.startswith(("accept:", "host:", "content-length:", "user-agent:"))] == [
        f"host: {url.split('/')[2]}", "accept: b", "user-agent: me", "content-length: 2"]


async def test_connections_that_cannot_carry_another_request_are_not_reused(client: httpx.AsyncClient) -> None:
    extra = JSON_OK + b"HTTP/1.1 200 OK\r\n"  # bytes after the body: the next answer would be garbage
    http10 = b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n{}"
    async with serve(answers(extra, http10, JSON_OK)) as (url, count):
        for _ in range(3):
            async with lean_http.post(client, url, b"{}", {}, TIMEOUT) as resp:
                assert await resp.aread() == b"{}"
    assert count[0] == 3


async def test_a_chunked_answer_written_byte_by_byte(client: httpx.AsyncClient) -> None:
    raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=y\r\n\":1}\r\n0\r\nX-T: 1\r\n\r\n"

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(2):
            await read_request(reader)
            for i in range(len(raw)):
                writer.write(raw[i:i + 1])
                await writer.drain()
        await reader.read()

    async with serve(trickle) as (url, count):
        for _ in range(2):
            async with lean_http.post(client, url, b"{}", {}, TIMEOUT) as resp:
                assert await resp.aread() == b'{"a":1}'
    assert count[0] == 1


async def test_an_answer_in_garbage_is_not_repeated_even_when_idempotent(client: httpx.AsyncClient) -> None:
    async with serve(answers(JSON_OK, b"SPDY/9 banana\r\n\r\n")) as (url, count):
        async with lean_http.post(client, url, b"{}", {}, TIMEOUT) as resp:
            await resp.aread()
        with pytest.raises(httpx.RemoteProtocolError):
            async with lean_http.post(client, url, b"{}", {}, TIMEOUT, rpc_extensions("tools/list")):
                pass
    assert (count[0], lean_http.lean_pool(client).retries) == (1, 0)

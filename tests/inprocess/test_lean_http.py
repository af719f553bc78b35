"""bridge.upstream.lean_http: the upstreams' JSON-RPC POST as plain HTTP/1.1, against a loopback server in
this event loop (Content-Length, chunked and read-to-EOF bodies; keep-alive reuse; the stale-connection
retry of idempotent requests; the httpx fallbacks)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from mcp_eras.bridge.upstream import lean_http
from mcp_eras.bridge.upstream.http_pool import rpc_extensions, upstream_client
from mcp_eras.bridge.upstream.legacy_transport import StreamableHttpTransport

pytestmark = pytest.mark.anyio
TIMEOUT = httpx.Timeout(10.0)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


Answer = Callable[[int, int, bytes, bytes], bytes | None]
"""(connection number, request number on it, head, body) -> raw response, or None to close unanswered."""


class Server:
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.connections = 0
        self.heads: list[bytes] = []
        self.arrived = asyncio.Event()
        """Set when a request has been read whole (cleared by the test that waits for it)."""
        self.closed = asyncio.Event()
        """Set when a client closed a connection (where a request would begin)."""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        conn, n = self.connections, 0
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    self.closed.set()
                    raise
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
                body = await reader.readexactly(length)
                self.heads.append(head)
                self.arrived.set()
                n += 1
                raw = self.answer(conn, n, head, body)
                if raw is None:
                    return
                writer.write(raw)
                await writer.drain()
                if b"connection: close" in raw.lower():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def json_answer(conn: int, n: int, head: bytes, body: bytes) -> bytes:
    payload = b'{"conn":%d,"echo":%s}' % (conn, body)
    return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(payload), payload)


def drop_second(conn: int, n: int, head: bytes, body: bytes) -> bytes | None:
    """Each connection's second request is closed unanswered (a stale keep-alive connection)."""
    return None if n == 2 else json_answer(conn, n, head, body)


async def serve(answer: Answer) -> tuple[Server, str, asyncio.AbstractServer]:
    fake = Server(answer)
    srv = await asyncio.start_server(fake.handle, "127.0.0.1", 0)
    return fake, f"http://127.0.0.1:{srv.sockets[0].getsockname()[1]}/mcp", srv


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with upstream_client(TIMEOUT, 30.0) as c:
        yield c


async def post(client: httpx.AsyncClient, url: str, body: bytes, method: str = "tools/call") -> tuple[int, httpx.Headers, bytes]:
    async with lean_http.post(client, url, body, {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                                                  "Mcp-Session-Id": "s1"}, TIMEOUT, rpc_extensions(method)) as resp:
        return resp.status_code, resp.headers, await resp.aread()


async def test_content_length_body_and_keep_alive_reuse(client: httpx.AsyncClient) -> None:
    fake, url, srv = await serve(json_answer)
    async with srv:
        for i in range(3):
            status, headers, body = await post(client, url, b"%d" % i)
            assert (status, headers["content-type"], body) == (200, "application/json", b'{"conn":1,"echo":%d}' % i)
    assert fake.connections == 1
    head = fake.heads[0].decode().lower()
    assert head.startswith("post /mcp http/1.1\r\n")
    for line in ("host: 127.0.0.1:", "mcp-session-id: s1", "content-type: application/json", "content-length: 1",
                 "accept: application/json, text/event-stream", "accept-encoding: identity", "user-agent: python-httpx/"):
        assert line in head
    assert head.count("accept:") == 1
    assert "connection:" not in head  # persistent is HTTP/1.1's default: httpx's "Connection: keep-alive" is not sent


@pytest.mark.parametrize("where", ["client default", "caller field"])
async def test_a_request_that_asks_to_close_is_not_followed_on_its_connection(where: str) -> None:
    """RFC 9112 §9.6: a client that sends "close" sends no further request on that connection (the lean path's
    reuse otherwise follows the response's own keep-alive)."""
    fake, url, srv = await serve(json_answer)
    async with srv, upstream_client(TIMEOUT, 30.0) as client:
        extra = {}
        if where == "client default":
            client.headers["Connection"] = "close"
        else:
            extra = {"Connection": "close"}
        for i in range(2):
            async with lean_http.post(client, url, b"%d" % i, {"Content-Type": "application/json", **extra}, TIMEOUT,
                                      rpc_extensions("tools/call")) as resp:
                assert await resp.aread() == b'{"conn":%d,"echo":%d}' % (i + 1, i)
    assert b"connection: close\r\n" in fake.heads[0].lower()
    assert fake.connections == 2


async def test_chunked_event_stream_is_read_in_order(client: httpx.AsyncClient) -> None:
    events = [b"event: message\ndata: {\"n\":1}\n\n", b"event: message\ndata: {\"n\":2}\n\n"]

    def chunked(conn: int, n: int, head: bytes, body: bytes) -> bytes:
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(e), e) for e in events)
        return b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"

    fake, url, srv = await serve(chunked)
    async with srv:
        async with lean_http.post(client, url, b"{}", {}, TIMEOUT) as resp:
            parts = [part async for part in resp.aiter_bytes()]
        assert parts == events
        await post(client, url, b"1")
    assert fake.connections == 1  # a chunked body read to its end leaves the connection reusable


async def test_body_until_close_and_connection_close(client: httpx.AsyncClient) -> None:
    def until_close(conn: int, n: int, head: bytes, body: bytes) -> bytes:
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"ok\":true}"

    fake, url, srv = await serve(until_close)
    async with srv:
        assert (await post(client, url, b"1"))[2] == b'{"ok":true}'
        assert (await post(client, url, b"2"))[2] == b'{"ok":true}'
    assert fake.connections == 2


async def test_an_unread_body_closes_its_connection(client: httpx.AsyncClient) -> None:
    fake, url, srv = await serve(json_answer)
    async with srv:
        async with lean_http.post(client, url, b"1", {}, TIMEOUT) as resp:
            assert resp.status_code == 200  # body left unread
        await post(client, url, b"2")
    assert fake.connections == 2


async def test_stale_connection_retry_only_for_idempotent_methods(client: httpx.AsyncClient) -> None:
    fake, url, srv = await serve(drop_second)
    async with srv:
        await post(client, url, b"1")
        assert (await post(client, url, b"2", method="tools/list"))[2] == b'{"conn":2,"echo":2}'
        assert lean_http.lean_pool(client).retries == 1
        with pytest.raises(httpx.RemoteProtocolError):
            await post(client, url, b"3", method="tools/call")  # connection 2's second request: dropped, not repeated
    assert lean_http.lean_pool(client).retries == 1
    assert [h.split(b"\r\n")[0] for h in fake.heads].count(b"POST /mcp HTTP/1.1") == 4


async def test_errors_are_httpx_errors(client: httpx.AsyncClient) -> None:
    def garbage(conn: int, n: int, head: bytes, body: bytes) -> bytes:
        return b"SPDY/9 banana\r\n\r\n"

    fake, url, srv = await serve(garbage)
    async with srv:
        with pytest.raises(httpx.RemoteProtocolError):
            await post(client, url, b"1")
    with pytest.raises(httpx.ConnectError):
        await post(client, url, b"1")  # the server is gone


async def test_cookies_and_other_clients_take_the_httpx_path() -> None:
    def set_cookie(conn: int, n: int, head: bytes, body: bytes) -> bytes:
        extra = b"Set-Cookie: lb=a; Path=/\r\n" if n == 1 else b""
        return b"HTTP/1.1 200 OK\r\n" + extra + b"Content-Length: 2\r\n\r\n{}"

    fake, url, srv = await serve(set_cookie)
    async with srv, upstream_client(TIMEOUT, 30.0) as client:
        await post(client, url, b"1")
        assert client.cookies.get("lb") == "a"
        await post(client, url, b"2")  # a cookie is held: httpx sends it
        assert b"cookie: lb=a" in fake.heads[1].lower()
    seen: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.content)
        return httpx.Response(200, json={})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as mock:
        assert (await post(mock, "http://upstream.test/mcp", b"{}"))[0] == 200
    assert seen == [b"{}"]


def begun(client: httpx.AsyncClient, url: str, body: bytes, method: str = "tools/call") -> tuple[Any, Callable[[], None] | None]:
    exchange = lean_http.post(client, url, body, {}, TIMEOUT, rpc_extensions(method))
    return exchange, lean_http.begin(exchange)


async def test_begin_writes_the_request_on_an_idle_connection_before_the_answer_is_read(client: httpx.AsyncClient) -> None:
    fake, url, srv = await serve(json_answer)
    async with srv:
        exchange, discard = begun(client, url, b"1")
        assert discard is not None and not fake.heads  # no idle connection yet: nothing written, entering opens one
        async with exchange as resp:
            assert await resp.aread() == b'{"conn":1,"echo":1}'
        fake.arrived.clear()
        exchange, _ = begun(client, url, b"2")
        await asyncio.wait_for(fake.arrived.wait(), 10)  # the server has it, and nobody has entered the exchange yet
        assert len(fake.heads) == 2
        async with exchange as resp:
            assert await resp.aread() == b'{"conn":1,"echo":2}'
        async with lean_http.post(client, url, b"3", {}, TIMEOUT) as resp:
            assert await resp.aread() == b'{"conn":1,"echo":3}'
    assert fake.connections == 1 and len(fake.heads) == 3  # each request written once


async def test_a_begun_request_meets_a_stale_connection_as_a_request_sent_on_entering(client: httpx.AsyncClient) -> None:
    fake, url, srv = await serve(drop_second)
    async with srv:
        await post(client, url, b"1")
        exchange, _ = begun(client, url, b"2", method="tools/list")
        async with exchange as resp:
            assert await resp.aread() == b'{"conn":2,"echo":2}'  # sent once more on a new connection
        assert lean_http.lean_pool(client).retries == 1
        exchange, _ = begun(client, url, b"3", method="tools/call")  # connection 2's second request: dropped
        with pytest.raises(httpx.RemoteProtocolError):
            async with exchange:
                pass  # not idempotent: not repeated
    assert lean_http.lean_pool(client).retries == 1


async def test_discard_closes_a_begun_exchange_never_entered(client: httpx.AsyncClient) -> None:
    fake, url, srv = await serve(json_answer)
    async with srv:
        await post(client, url, b"1")
        _exchange, discard = begun(client, url, b"2")
        assert discard is not None
        discard()
        await post(client, url, b"3")  # the begun connection (its answer unread) is not reused
        discard()  # once only
    assert fake.connections == 2


async def test_begin_leaves_the_httpx_path_alone() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as mock:
        exchange, discard = begun(mock, "http://upstream.test/mcp", b"{}")
        assert discard is None
        async with exchange as resp:
            assert resp.status_code == 200


async def test_transport_writes_a_request_at_send_and_drops_it_when_abandoned_before_its_task_ran(client: httpx.AsyncClient) -> None:
    def answer(conn: int, n: int, head: bytes, body: bytes) -> bytes | None:
        rid = json.loads(body)["id"]
        payload = b'{"jsonrpc":"2.0","id":%d,"result":{}}' % rid
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(payload), payload)

    fake, url, srv = await serve(answer)
    got: list[dict[str, Any]] = []
    taken = asyncio.Event()

    async def deliver(msg: dict[str, Any], related: Any) -> None:
        raise AssertionError(f"a response goes to take_response: {msg}")

    def take(msg: dict[str, Any]) -> bool:
        got.append(msg)
        taken.set()
        return True

    async def lost(why: str) -> None:
        raise AssertionError(why)

    async with srv:
        transport = StreamableHttpTransport(url, client)
        transport.bind(deliver, lost, take)
        await transport.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}})
        await asyncio.wait_for(taken.wait(), 10)
        await asyncio.gather(*transport._posts.values())  # noqa: SLF001 - its connection is back in the pool
        await transport.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}})
        transport.abandon(2)  # before its task ran: the request is out (on the pooled connection), its answer never read
        await asyncio.wait_for(fake.closed.wait(), 10)  # that connection is closed, not left open nor pooled
        taken.clear()
        await transport.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {}})
        await asyncio.wait_for(taken.wait(), 10)
        await transport.close()
    assert [m["id"] for m in got] == [1, 3]
    assert fake.connections == 2  # request 2's connection was closed, not reused for request 3

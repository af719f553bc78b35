"""The upstreams' keep-alive pool (bridge.upstream.http_pool) against a loopback HTTP/1.1 server in this
event loop whose first connection answers once and then drops the next request unanswered: the race of
a request written into a keep-alive connection the server is closing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from mcp_eras.bridge.upstream.http_pool import IDEMPOTENT, KeepAliveTransport, rpc_extensions, upstream_client

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class DroppingServer:
    """Connection 1 answers its first request, then reads the second and closes without a byte."""

    def __init__(self) -> None:
        self.connections = 0
        self.requests: list[tuple[int, bytes]] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        conn = self.connections
        served = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
                body = await reader.readexactly(length)
                self.requests.append((conn, head.split(b" ")[0] + b" " + body))
                if conn == 1 and served == 1:
                    return  # the stale keep-alive connection: closed with the request unanswered
                served += 1
                payload = b'{"ok":%d}' % conn
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(payload), payload))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def server() -> AsyncIterator[tuple[DroppingServer, str]]:
    fake = DroppingServer()
    srv = await asyncio.start_server(fake.handle, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    async with srv:
        yield fake, f"http://127.0.0.1:{port}/mcp"


async def test_idempotent_request_is_retried_once_on_a_fresh_connection(server: tuple[DroppingServer, str]) -> None:
    fake, url = server
    transport = KeepAliveTransport(keepalive_expiry=30)
    async with httpx.AsyncClient(transport=transport) as client:
        assert (await client.post(url, content=b"1")).json() == {"ok": 1}
        resp = await client.post(url, content=b"2", extensions=rpc_extensions("tools/list"))
        assert resp.json() == {"ok": 2}  # answered on a second connection
    assert transport.pool.retries == 1
    assert fake.requests == [(1, b"POST 1"), (1, b"POST 2"), (2, b"POST 2")]


async def test_get_is_idempotent_by_method(server: tuple[DroppingServer, str]) -> None:
    fake, url = server
    transport = KeepAliveTransport(keepalive_expiry=30)
    async with httpx.AsyncClient(transport=transport) as client:
        await client.get(url)
        assert (await client.get(url)).json() == {"ok": 2}
    assert transport.pool.retries == 1


async def test_non_idempotent_request_is_not_repeated(server: tuple[DroppingServer, str]) -> None:
    fake, url = server
    transport = KeepAliveTransport(keepalive_expiry=30)
    async with httpx.AsyncClient(transport=transport) as client:
        await client.post(url, content=b"1")
        with pytest.raises(httpx.RemoteProtocolError):
            await client.post(url, content=b"2", extensions=rpc_extensions("tools/call"))
    assert transport.pool.retries == 0
    assert fake.requests == [(1, b"POST 1"), (1, b"POST 2")]  # sent once: the server may have acted on it


async def test_a_fresh_connection_failure_is_not_retried() -> None:
    async def close_at_once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.close()

    srv = await asyncio.start_server(close_at_once, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{srv.sockets[0].getsockname()[1]}/"
    transport = KeepAliveTransport(keepalive_expiry=30)
    async with srv, httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(httpx.RemoteProtocolError):
            await client.get(url, extensions={IDEMPOTENT: True})
    assert transport.pool.retries == 0


async def test_connections_are_reused_lifo_and_idle_ones_capped(server: tuple[DroppingServer, str]) -> None:
    fake, url = server
    fake.connections = 1  # every connection answers everything
    transport = KeepAliveTransport(keepalive_expiry=30, max_idle=2)
    async with httpx.AsyncClient(transport=transport) as client:
        answers = await asyncio.gather(*(client.post(url, content=b"x") for _ in range(4)))
        assert {r.status_code for r in answers} == {200}
        assert fake.connections == 5  # four at once: four connections
        assert transport.pool.connections == 2  # two kept idle, two closed at check-in
        for _ in range(3):
            await client.post(url, content=b"y")
        assert fake.connections == 5  # sequential calls reuse an idle one


async def test_expired_idle_connections_are_closed(server: tuple[DroppingServer, str]) -> None:
    fake, url = server
    fake.connections = 1
    transport = KeepAliveTransport(keepalive_expiry=0)
    async with httpx.AsyncClient(transport=transport) as client:
        await client.post(url, content=b"x")
        await client.post(url, content=b"y")
    assert fake.connections == 3  # expiry 0: never reused


def test_a_proxy_in_the_environment_keeps_httpx_transports(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    client = upstream_client(httpx.Timeout(5), 5.0)
    assert not isinstance(client._transport, KeepAliveTransport)
    monkeypatch.delenv("HTTPS_PROXY")
    for name in ("HTTP_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    assert isinstance(upstream_client(httpx.Timeout(5), 5.0)._transport, KeepAliveTransport)


async def test_the_upstream_client_keeps_cookies_the_server_sets() -> None:
    seen: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("cookie"))
        return httpx.Response(200, headers={"set-cookie": "lb=node-2; Path=/"} if len(seen) == 1 else {})

    client = upstream_client(httpx.Timeout(5), 5.0)
    client._transport = httpx.MockTransport(handler)
    async with client:
        for _ in range(3):
            await client.get("http://upstream.test/mcp")
    assert seen == [None, "lb=node-2", "lb=node-2"]

"""The hot POST of the HTTP upstreams as plain HTTP/1.1 on asyncio streams (no httpx/httpcore layers).

Measured with ``bench/profile_bridge.py``: once the pool walk was gone (``http_pool``), httpx's request
building, auth/redirect/cookie layers and httpcore's h11 + anyio stream wrappers were still most of the
bridge's CPU per relayed call on an HTTP upstream. JSON-RPC POSTs need none of that: one request
line, a few headers, a body of known length; a response with Content-Length, chunked, or read to EOF.

``post(client, ...)`` takes this path for ``http://`` URLs when the client is the upstream client of
``http_pool.upstream_client`` and no cookie is held; anything else (https, proxies, a cookie jar in
use, a test's MockTransport) goes through ``client.stream`` as before. The response object offers what
the upstreams read (``status_code``, ``headers``, ``aread``, ``aiter_bytes``) and failures raise the
httpx exceptions the callers already handle. An idempotent request (``http_pool.IDEMPOTENT``) that
meets a stale keep-alive connection is sent once more on a new one, as in ``http_pool``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import httpx

from mcp_eras.bridge.upstream.http_pool import IDEMPOTENT, KeepAliveTransport

MAX_HEAD = 64 * 1024
"""Largest response head accepted (status line + headers)."""

_Conn = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class LeanPool:
    """Idle keep-alive connections per (host, port), LIFO, closed after ``expiry`` seconds idle."""

    def __init__(self, expiry: float | None, max_idle: int) -> None:
        self.expiry = expiry
        self.max_idle = max_idle
        self.idle: dict[tuple[str, int], list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]]] = {}
        self.retries = 0

    def take(self, key: tuple[str, int], now: float) -> _Conn | None:
        stack = self.idle.get(key)
        while stack:
            reader, writer, since = stack.pop()
            if (self.expiry is None or since >= now - self.expiry) and not reader.at_eof() and not writer.is_closing():
                return reader, writer
            writer.close()
        return None

    def give(self, key: tuple[str, int], conn: _Conn, now: float) -> None:
        stack = self.idle.setdefault(key, [])
        stack.append((*conn, now))
        while stack and (len(stack) > self.max_idle or (self.expiry is not None and stack[0][2] < now - self.expiry)):
            stack.pop(0)[1].close()

    def close(self) -> None:
        for stack in self.idle.values():
            for _r, writer, _t in stack:
                writer.close()
        self.idle.clear()


def lean_pool(client: httpx.AsyncClient) -> LeanPool | None:
    transport = getattr(client, "_transport", None)
    return transport.pool.lean if isinstance(transport, KeepAliveTransport) else None


class LeanResponse:
    def __init__(self, status: int, headers: httpx.Headers, reader: asyncio.StreamReader, read_timeout: float | None) -> None:
        self.status_code = status
        self.headers = headers
        self._reader = reader
        self._timeout = read_timeout
        length = headers.get("content-length")
        self._chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        self._left = int(length) if length is not None and length.isdigit() else None
        self.complete = status in (204, 304) or (not self._chunked and self._left == 0)
        self.reusable = headers.get("connection", "").lower() != "close"

    async def _read(self, coro: Any) -> Any:
        try:
            if self._timeout is None:
                return await coro
            async with asyncio.timeout(self._timeout):
                return await coro
        except TimeoutError:
            raise httpx.ReadTimeout("upstream read timed out") from None
        except asyncio.IncompleteReadError:
            raise httpx.RemoteProtocolError("upstream closed the connection mid-body") from None
        except (ConnectionError, OSError) as exc:
            raise httpx.ReadError(str(exc) or exc.__class__.__name__) from None

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        while not self.complete:
            if self._chunked:
                line = await self._read(self._reader.readuntil(b"\r\n"))
                try:
                    size = int(line.split(b";", 1)[0], 16)
                except ValueError:
                    raise httpx.RemoteProtocolError("malformed chunk size from upstream") from None
                if size == 0:
                    while (await self._read(self._reader.readuntil(b"\r\n"))) != b"\r\n":
                        pass  # trailers
                    self.complete = True
                    return
                data = await self._read(self._reader.readexactly(size + 2))
                yield data[:-2]
            elif self._left is not None:
                data = await self._read(self._reader.read(min(self._left, 65536)))
                if not data:
                    raise httpx.RemoteProtocolError("upstream closed the connection mid-body")
                self._left -= len(data)
                self.complete = self._left == 0
                yield data
            else:  # no length: the body ends with the connection
                data = await self._read(self._reader.read(65536))
                if not data:
                    self.complete = True
                    self.reusable = False
                    return
                yield data

    async def aread(self) -> bytes:
        return b"".join([part async for part in self.aiter_bytes()])


async def _open(host: str, port: int, timeout: float | None) -> _Conn:
    try:
        async with asyncio.timeout(timeout):
            return await asyncio.open_connection(host, port, limit=MAX_HEAD)
    except TimeoutError:
        raise httpx.ConnectTimeout(f"connecting to {host}:{port} timed out") from None
    except OSError as exc:
        raise httpx.ConnectError(str(exc) or exc.__class__.__name__) from None


async def _head(conn: _Conn, request: bytes, timeout: float | None) -> tuple[int, httpx.Headers]:
    reader, writer = conn
    try:
        writer.write(request)
        async with asyncio.timeout(timeout):
            head = await reader.readuntil(b"\r\n\r\n")
    except TimeoutError:
        raise httpx.ReadTimeout("upstream did not answer in time") from None
    except asyncio.IncompleteReadError:
        raise httpx.RemoteProtocolError("Server disconnected without sending a response.") from None
    except asyncio.LimitOverrunError:
        raise httpx.RemoteProtocolError("upstream response head too large") from None
    except (ConnectionError, OSError) as exc:
        raise httpx.ReadError(str(exc) or exc.__class__.__name__) from None
    lines = head[:-4].split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise httpx.RemoteProtocolError(f"malformed status line from upstream: {lines[0][:80]!r}")
    raw = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep:
            raise httpx.RemoteProtocolError("malformed header line from upstream")
        raw.append((name.strip(), value.strip()))
    return int(parts[1]), httpx.Headers(raw)


@contextlib.asynccontextmanager
async def post(client: httpx.AsyncClient, url: str, content: bytes, headers: dict[str, str], timeout: httpx.Timeout,
               extensions: dict[str, Any] | None = None) -> AsyncIterator[Any]:
    """``client.stream("POST", ...)``, on the lean path when it applies (see the module docstring)."""
    pool = lean_pool(client)
    parts = urlsplit(url) if pool is not None else None
    if pool is None or parts is None or parts.scheme != "http" or client.cookies:
        async with client.stream("POST", url, content=content, headers=headers, timeout=timeout, extensions=extensions) as resp:
            yield resp
        return
    host, port = parts.hostname or "", parts.port or 80
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    merged = {k.lower(): v for k, v in client.headers.items()}  # the client's defaults: User-Agent, Accept...
    merged["accept-encoding"] = "identity"  # bodies are relayed as they come: no decoder on this path
    merged.update((k.lower(), v) for k, v in headers.items())
    for name in ("host", "content-length", "transfer-encoding"):
        merged.pop(name, None)
    netloc = parts.netloc.rpartition("@")[2]
    lines = [f"POST {target} HTTP/1.1", f"host: {netloc}", *(f"{k}: {v}" for k, v in merged.items()),
             f"content-length: {len(content)}"]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + content
    key = (host, port)
    loop = asyncio.get_running_loop()
    conn = pool.take(key, loop.time())
    reused = conn is not None
    if conn is None:
        conn = await _open(host, port, timeout.connect)
    try:
        try:
            status, resp_headers = await _head(conn, request, timeout.read)
        except (httpx.RemoteProtocolError, httpx.ReadError):
            conn[1].close()
            if not (reused and (extensions or {}).get(IDEMPOTENT) is True):
                raise
            pool.retries += 1  # a stale keep-alive connection (RFC 9110 §9.2.2): once more on a new one
            conn = await _open(host, port, timeout.connect)
            status, resp_headers = await _head(conn, request, timeout.read)
    except BaseException:
        conn[1].close()
        raise
    if resp_headers.get("content-encoding", "identity").lower() != "identity":
        conn[1].close()
        raise httpx.DecodingError("upstream sent an encoded body that was not asked for")
    if "set-cookie" in resp_headers:
        client.cookies.extract_cookies(httpx.Response(status, headers=resp_headers, request=httpx.Request("POST", url)))
    response = LeanResponse(status, resp_headers, conn[0], timeout.read)
    try:
        yield response
    finally:
        if response.complete and response.reusable:
            pool.give(key, conn, loop.time())
        else:
            conn[1].close()  # a body not read to its end cannot carry another request

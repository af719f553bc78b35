"""The hot POST of the HTTP upstreams as plain HTTP/1.1 on an asyncio protocol (no httpx/httpcore layers).

Measured with ``bench/profile_bridge.py``: once the pool walk was gone (``http_pool``), httpx's request
building, auth/redirect/cookie layers and httpcore's h11 + anyio stream wrappers were still most of the
bridge's CPU per relayed call on an HTTP upstream; after them, ``httpx.Headers``, an ``asyncio.timeout``
around every read and ``StreamReader`` waits. JSON-RPC POSTs need none of that: one request line, a few
headers, a body of known length; a response with Content-Length, chunked, or read to EOF (RFC 9112 §6.3).

``post(client, ...)`` takes this path for ``http://`` URLs when the client is the upstream client of
``http_pool.upstream_client``, no cookie is held and the client signs no request (no ``httpx.Auth``: an upstream
behind OAuth has every request go through httpx's auth flow, which retries after a sign-in); anything else (https,
proxies, a cookie jar in use, a test's MockTransport) goes through ``client.stream`` as before. The response object offers what
the upstreams read (``status_code``, ``headers``, ``aread``, ``aiter_bytes``; ``headers`` is a dict of
lower-cased names, repeated fields joined with ", " as httpx does) and failures raise httpx exceptions
the callers already handle. An idempotent request (``http_pool.IDEMPOTENT``) that meets a stale
keep-alive connection (closed or reset before a byte of an answer) is sent once more on a new one.

Per request: the head is the target's prebuilt bytes (request line, Host, the client's default headers)
plus the caller's fields and Content-Length; the connection (``_Conn``) buffers what the loop hands it
and parses heads and bodies from that buffer, so a body that arrived with its head costs no further
wait. Each wait for bytes has a deadline of the read timeout from its start (httpx's read timeout),
enforced by one timer per connection that is re-armed only when it fires early.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from time import monotonic
from typing import Any
from urllib.parse import urlsplit

import httpx

from mcp_eras.bridge.translate import http1
from mcp_eras.bridge.translate.http1 import MAX_HEAD, HeadCache, framing
from mcp_eras.bridge.upstream.http_pool import IDEMPOTENT, KeepAliveTransport

__all__ = ["MAX_BODY", "MAX_HEAD", "BodyTooLarge", "HeadTooLarge", "LeanPool", "LeanResponse", "begin", "lean_pool", "post"]

_HIGH_WATER = 256 * 1024
"""Buffered bytes above which the connection stops reading until its reader asks for more."""

_FRAMING = frozenset({"host", "content-length", "transfer-encoding"})
"""Caller header names this client sets itself."""

HEADS = HeadCache()
"""Response heads parsed lately (``translate.http1.HeadCache``: at most 32 of up to 1 KiB each)."""

MAX_BODY = 16 * 1024 * 1024
"""Largest body ``aread`` collects: as large as one stdio frame (``--max-line-bytes``)."""


class HeadTooLarge(httpx.RemoteProtocolError):
    """The response head (or the chunked trailers) ran past ``MAX_HEAD`` bytes."""


class BodyTooLarge(httpx.RemoteProtocolError):
    """A body read whole (``aread``) ran past its limit."""


def _broken_wire(exc: http1.ProtocolError) -> httpx.RemoteProtocolError:
    """The parser's verdict as the httpx error the upstreams handle."""
    return (HeadTooLarge if isinstance(exc, http1.HeadTooLarge) else httpx.RemoteProtocolError)(str(exc))


class _Conn(asyncio.Protocol):
    """One HTTP/1.1 connection: a byte buffer the loop fills, one waiter, one lazily re-armed read deadline."""

    __slots__ = ("loop", "transport", "buf", "eof", "error", "got", "paused", "read_timeout", "_waiter", "_since",
                 "_timer", "_due")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.got = False
        """A byte arrived since the current request was written (a failure then is not a stale connection)."""
        self.paused = False
        self.read_timeout: float | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._since = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._due = 0.0

    # --- protocol callbacks ---------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buf += data
        self.got = True
        if len(self.buf) > _HIGH_WATER and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool | None:
        self.eof = True
        self._wake()
        return None  # the transport closes itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # --- reading --------------------------------------------------------------------------------

    async def more(self) -> None:
        """Wait until bytes arrive, the peer closes, or the read timeout passes (``httpx.ReadTimeout``)."""
        if self.eof:
            return
        if self.paused and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        loop = self.loop
        waiter = self._waiter = loop.create_future()
        timeout = self.read_timeout
        if timeout is not None:
            self._since = now = loop.time()
            if self._timer is None or self._due > now + timeout:
                if self._timer is not None:
                    self._timer.cancel()
                self._due = now + timeout
                self._timer = loop.call_at(self._due, self._expire)
        try:
            await waiter
        finally:
            self._waiter = None

    def _expire(self) -> None:
        self._timer = None
        waiter, timeout = self._waiter, self.read_timeout
        if waiter is None or waiter.done() or timeout is None:
            return  # not waiting now: the next wait arms the timer again
        due = self._since + timeout
        if due - self.loop.time() > 0.001:  # this wait began after the timer was set: its own deadline is later
            self._due = due
            self._timer = self.loop.call_at(due, self._expire)
            return
        waiter.set_exception(httpx.ReadTimeout("upstream read timed out"))

    def broken(self, what: str) -> httpx.HTTPError:
        """The error for a connection that ended where more bytes were due."""
        if self.error is not None:
            return httpx.ReadError(str(self.error) or self.error.__class__.__name__)
        return httpx.RemoteProtocolError(what)

    async def head(self) -> tuple[int, bool, dict[str, str], list[str]]:
        """The next final response head (1xx interim responses are skipped)."""
        buf = self.buf
        while True:
            start = 0
            while (end := buf.find(b"\r\n\r\n", start)) < 0:
                if len(buf) > MAX_HEAD:
                    raise HeadTooLarge(f"upstream response head over {MAX_HEAD} bytes")
                if self.eof:
                    raise self.broken("Server disconnected without sending a response." if not buf
                                      else "upstream closed the connection mid-head")
                start = max(0, len(buf) - 3)
                await self.more()
            if end > MAX_HEAD:
                raise HeadTooLarge(f"upstream response head over {MAX_HEAD} bytes")
            raw = bytes(buf[:end])
            del buf[:end + 4]
            try:
                status, keep_alive, headers, cookies = HEADS.parse(raw)
            except http1.ProtocolError as exc:
                raise _broken_wire(exc) from None
            if status >= 200:
                return status, keep_alive, headers, cookies

    # --- connection -----------------------------------------------------------------------------

    def send(self, request: bytes, read_timeout: float | None) -> None:
        self.got = False
        transport = self.transport
        if transport is None or transport.is_closing() or self.eof:
            raise httpx.ReadError("connection closed")
        self.read_timeout = read_timeout
        transport.write(request)

    def usable(self) -> bool:
        """Idle and reusable: open, and nothing unread (a byte unasked for means the server is closing it)."""
        return not self.eof and not self.buf and self.transport is not None and not self.transport.is_closing()

    def close(self) -> None:
        self.eof = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.transport is not None:
            self.transport.close()


class _Target:
    """One URL's request head, prebuilt: the request line, Host and the client's default headers, per set of
    caller header names (the caller's own fields replace defaults of the same name, case-insensitively)."""

    __slots__ = ("key", "closes", "_line", "_defaults", "_prefixes", "_fields")

    def __init__(self, key: tuple[str, int], line: str, defaults: dict[str, str]) -> None:
        self.key = key
        self.closes = "close" in defaults.get("connection", "").lower()
        """The client's default fields ask for the connection to close after each response (RFC 9112 §9.6)."""
        self._line = line
        self._defaults = defaults
        self._prefixes: dict[tuple[str, ...], tuple[bytes, bool]] = {}
        self._fields: dict[tuple[tuple[str, str], ...], tuple[bytes, bool]] = {}
        """The caller's fields, checked and encoded, by their (name, value) pairs: a session sends the same ones on
        every request (its id, its version), so each set is formatted once."""

    @classmethod
    def of(cls, url: str, client: httpx.AsyncClient) -> _Target | None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            return None
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        defaults = {k.lower(): v for k, v in client.headers.items()}  # User-Agent, Accept...
        defaults["accept-encoding"] = "identity"  # bodies are relayed as they come: no decoder on this path
        if defaults.get("connection", "").lower() == "keep-alive":
            # HTTP/1.1 connections persist unless a side says close (RFC 9112 §9.3): the field httpx adds by default
            # says nothing, and the upstream parses every field of every request (one field is 0.1-0.3% of an mcp 1.x
            # server's instructions per call: ``bench/server_instructions.py``).
            del defaults["connection"]
        for name in _FRAMING:
            defaults.pop(name, None)
        line = f"POST {path} HTTP/1.1\r\nhost: {parts.netloc.rpartition('@')[2]}\r\n"
        return cls((parts.hostname, parts.port or 80), line, defaults)

    def _prefix(self, names: tuple[str, ...]) -> tuple[bytes, bool]:
        lowered = [name.lower() for name in names]
        fold = len(set(lowered)) != len(lowered) or not _FRAMING.isdisjoint(lowered)
        defaults = "".join(f"{k}: {v}\r\n" for k, v in self._defaults.items() if k not in lowered)
        if len(self._prefixes) >= 256:
            self._prefixes.clear()
        entry = self._prefixes[names] = ((self._line + defaults).encode("latin-1"), fold)
        return entry

    def request(self, headers: dict[str, str], content: bytes) -> tuple[bytes, bool]:
        """The request's bytes, and whether it asks for its connection to be closed after the response."""
        prefix, fold = self._prefixes.get(tuple(headers)) or self._prefix(tuple(headers))
        pairs = tuple(headers.items())
        fields = self._fields.get(pairs)
        if fields is None:
            fields = self._encode(headers, fold), self.closes or any(
                k.lower() == "connection" and "close" in v.lower() for k, v in pairs)
            if len(self._fields) >= 256:
                self._fields.clear()
            self._fields[pairs] = fields
        return b"".join((prefix, fields[0], b"content-length: %d\r\n\r\n" % len(content), content)), fields[1]

    @staticmethod
    def _encode(headers: dict[str, str], fold: bool) -> bytes:
        if fold:  # names repeated in another case, or framing fields: the last of each name, ours for framing
            folded = {k.lower(): v for k, v in headers.items()}
            headers = {k: v for k, v in folded.items() if k not in _FRAMING}
        fields = "".join([f"{k}: {v}\r\n" for k, v in headers.items()])
        if fields.count("\n") != len(headers) or fields.count("\r") != len(headers):
            raise httpx.LocalProtocolError("a request header name or value holds a line break")
        try:
            return fields.encode("latin-1")
        except UnicodeEncodeError:
            raise httpx.LocalProtocolError("a request header name or value is not Latin-1") from None


class LeanPool:
    """Idle keep-alive connections per (host, port), LIFO, closed after ``expiry`` seconds idle.

    Idle times are ``time.monotonic()`` seconds, read from the vDSO: ``asyncio.get_running_loop().time()`` would cost a
    system call per request on CPython 3.11, whose C ``get_running_loop`` compares the process id (``getpid()``) on
    every call."""

    def __init__(self, expiry: float | None, max_idle: int) -> None:
        self.expiry = expiry
        self.max_idle = max_idle
        self.idle: dict[tuple[str, int], list[tuple[_Conn, float]]] = {}
        self.retries = 0
        self._targets: dict[str, _Target | None] = {}

    def target(self, url: str, client: httpx.AsyncClient) -> _Target | None:
        """The prebuilt target of ``url``; None when this path does not serve it (not plain http)."""
        try:
            return self._targets[url]
        except KeyError:
            pass
        if len(self._targets) >= 64:
            self._targets.clear()
        target = self._targets[url] = _Target.of(url, client)
        return target

    def take(self, key: tuple[str, int], now: float) -> _Conn | None:
        stack = self.idle.get(key)
        while stack:
            conn, since = stack.pop()
            if (self.expiry is None or since >= now - self.expiry) and conn.usable():
                return conn
            conn.close()
        return None

    def give(self, key: tuple[str, int], conn: _Conn, now: float) -> None:
        stack = self.idle.setdefault(key, [])
        stack.append((conn, now))
        while stack and (len(stack) > self.max_idle or (self.expiry is not None and stack[0][1] < now - self.expiry)):
            stack.pop(0)[0].close()

    def close(self) -> None:
        for stack in self.idle.values():
            for conn, _t in stack:
                conn.close()
        self.idle.clear()


def lean_pool(client: httpx.AsyncClient) -> LeanPool | None:
    """The lean path's connections of an upstream client (``http_pool.upstream_client``), made on first use; None for
    any other client."""
    transport = getattr(client, "_transport", None)
    if not isinstance(transport, KeepAliveTransport):
        return None
    pool = transport.pool
    if pool.lean is None:
        pool.lean = LeanPool(pool.keepalive_expiry, pool.max_idle)
    return pool.lean  # type: ignore[no-any-return]


class LeanResponse:
    """A response being read from its connection's buffer."""

    __slots__ = ("status_code", "headers", "complete", "reusable", "_conn", "_left", "_chunks")

    def __init__(self, status: int, keep_alive: bool, headers: dict[str, str], conn: _Conn) -> None:
        self.status_code = status
        self.headers = headers
        self._conn = conn
        try:
            self._chunks, self._left = framing(status, headers)
        except http1.ProtocolError as exc:
            raise _broken_wire(exc) from None
        self.complete = self._chunks is None and self._left == 0
        self.reusable = keep_alive

    def _take(self) -> bytes:
        """What the buffer holds of the body (b"" when it holds none); marks the end of the body."""
        buf = self._conn.buf
        if self._chunks is not None:
            try:
                data = self._chunks.feed(buf)
            except http1.ProtocolError as exc:
                raise _broken_wire(exc) from None
            self.complete = self._chunks.done
            return data
        left = self._left
        if left is None:  # no length: the body ends with the connection
            data = bytes(buf)
            buf.clear()
            if not data and self._conn.eof:
                if self._conn.error is not None:
                    raise self._conn.broken("")
                self.complete, self.reusable = True, False
            return data
        if len(buf) >= left:
            data = bytes(buf[:left])
            del buf[:left]
            self._left, self.complete = 0, True
            return data
        data = bytes(buf)
        buf.clear()
        self._left = left - len(data)
        return data

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        while data := await self.read_some():
            yield data

    async def read_some(self) -> bytes:
        """The next part of the body, as soon as there is one; b"" once all of it has been read. ``aiter_bytes``
        one step at a time, for a reader that keeps no async generator per response (``sse.ResponseEvents``)."""
        conn = self._conn
        while not self.complete:
            data = self._take()
            if data:
                return data
            if not self.complete:
                if conn.eof:
                    raise conn.broken("upstream closed the connection mid-body")
                await conn.more()
        return b""

    async def aread(self, limit: int = MAX_BODY) -> bytes:
        """The whole body; ``BodyTooLarge`` past ``limit`` bytes."""
        conn, left = self._conn, self._left
        if self._chunks is None and left is not None:  # Content-Length: one slice of the buffer
            if left > limit:
                raise BodyTooLarge(f"upstream response body over {limit} bytes")
            while len(conn.buf) < left:
                if conn.eof:
                    raise conn.broken("upstream closed the connection mid-body")
                await conn.more()
            return self._take()
        parts, size = [], 0
        async for part in self.aiter_bytes():
            size += len(part)
            if size > limit:
                raise BodyTooLarge(f"upstream response body over {limit} bytes")
            parts.append(part)
        return b"".join(parts)


async def _open(key: tuple[str, int], timeout: float | None) -> _Conn:
    loop = asyncio.get_running_loop()
    host, port = key
    try:
        async with asyncio.timeout(timeout):
            _transport, conn = await loop.create_connection(lambda: _Conn(loop), host, port)
    except TimeoutError:
        raise httpx.ConnectTimeout(f"connecting to {host}:{port} timed out") from None
    except OSError as exc:
        raise httpx.ConnectError(str(exc) or exc.__class__.__name__) from None
    return conn


class _Post:
    """``async with``: the request on a pooled (or new) connection; the response; the connection back.

    ``begin()`` (optional, before ``async with``) writes the request at once on an idle pooled connection, so a
    caller that reads the answer in another task sends it without waiting for that task to run; a post begun and
    never entered is ended with ``discard()``."""

    __slots__ = ("pool", "target", "client", "url", "request", "closes", "timeout", "idempotent", "conn", "response",
                 "_begun")

    def __init__(self, pool: LeanPool, target: _Target, client: httpx.AsyncClient, url: str,
                 request: tuple[bytes, bool], timeout: httpx.Timeout, idempotent: bool) -> None:
        self.pool, self.target, self.client, self.url = pool, target, client, url
        self.request, self.closes = request
        self.timeout, self.idempotent = timeout, idempotent
        self.conn: _Conn | None = None
        self.response: LeanResponse | None = None
        self._begun: _Conn | None = None

    def begin(self) -> None:
        """Write the request now when an idle pooled connection is there (else ``async with`` opens one)."""
        conn = self.pool.take(self.target.key, monotonic())
        if conn is None:
            return
        try:
            conn.send(self.request, self.timeout.read)
        except httpx.ReadError:  # closed under us: ``async with`` takes another (or opens one)
            conn.close()
            return
        self._begun = conn

    def discard(self) -> None:
        """A begun post that is not entered (its reader was cancelled first): its connection cannot be reused."""
        conn, self._begun = self._begun, None
        if conn is not None:
            conn.close()

    async def __aenter__(self) -> LeanResponse:
        pool, key, read = self.pool, self.target.key, self.timeout.read
        conn, self._begun = self._begun, None
        begun = conn is not None
        if conn is None:
            conn = pool.take(key, monotonic())
        reused = conn is not None
        if conn is None:
            conn = await _open(key, self.timeout.connect)
        try:
            try:
                if not begun:
                    conn.send(self.request, read)
                status, keep_alive, headers, cookies = await conn.head()
            except (httpx.RemoteProtocolError, httpx.ReadError):
                conn.close()
                if not (reused and not conn.got and self.idempotent):
                    raise
                pool.retries += 1  # a stale keep-alive connection (RFC 9110 §9.2.2): once more on a new one
                conn = await _open(key, self.timeout.connect)
                conn.send(self.request, read)
                status, keep_alive, headers, cookies = await conn.head()
            encoding = headers.get("content-encoding")
            if encoding is not None and encoding.lower() != "identity":
                raise httpx.DecodingError("upstream sent an encoded body that was not asked for")
            self.response = LeanResponse(status, keep_alive, headers, conn)
        except BaseException:
            conn.close()
            raise
        self.conn = conn
        if cookies:
            self.client.cookies.extract_cookies(httpx.Response(status, headers=[("set-cookie", c) for c in cookies],
                                                               request=httpx.Request("POST", self.url)))
        return self.response

    async def __aexit__(self, *exc: object) -> None:
        conn, response = self.conn, self.response
        if conn is None or response is None:
            return
        if response.complete and response.reusable and not self.closes and conn.usable():
            self.pool.give(self.target.key, conn, monotonic())
        else:
            conn.close()  # a body not read to its end cannot carry another request


def post(client: httpx.AsyncClient, url: str, content: bytes, headers: dict[str, str], timeout: httpx.Timeout,
         extensions: dict[str, Any] | None = None) -> AbstractAsyncContextManager[Any]:
    """``client.stream("POST", ...)``, on the lean path when it applies (see the module docstring)."""
    pool = lean_pool(client)
    target = pool.target(url, client) if pool is not None else None
    # (a cookie jar's own truth test walks every cookie: its dict is asked instead)
    if pool is None or target is None or client.auth is not None or client.cookies.jar._cookies:
        return client.stream("POST", url, content=content, headers=headers, timeout=timeout, extensions=extensions)
    idempotent = extensions is not None and extensions.get(IDEMPOTENT) is True
    return _Post(pool, target, client, url, target.request(headers, content), timeout, idempotent)


def begin(exchange: AbstractAsyncContextManager[Any]) -> Callable[[], None] | None:
    """Write the request of ``post(...)``'s answer now when it is on the lean path and a pooled connection is idle
    (``_Post.begin``). Returns what ends it if it is never entered (``_Post.discard``); None off the lean path."""
    if not isinstance(exchange, _Post):
        return None
    exchange.begin()
    return exchange.discard

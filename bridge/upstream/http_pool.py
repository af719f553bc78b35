"""The HTTP client of the upstreams: httpx, with a keep-alive pool whose cost per request does not grow
with the number of connections, and one retry of an idempotent request that met a stale connection.

httpx's default pool (httpcore ``AsyncConnectionPool``) walks every connection it holds on each request
and on each response close, asking each one whether it is idle, expired or readable (a ``select`` per
idle socket). A bridge under load holds one connection per concurrent call plus every 2025 session's
GET stream, so that walk was the largest single cost of a relayed call on an HTTP upstream (cProfile,
``bench/profile_bridge.py``). This pool keeps idle connections per origin in a LIFO stack instead:
a request pops the most recently used one (checking only that one), a closed response pushes its
connection back; idle connections past the keep-alive expiry are closed from the bottom of the stack.

A server may close an idle keep-alive connection at any moment; a request written into that race fails
with ``ReadError``/``WriteError``/``RemoteProtocolError`` before any response arrives. RFC 9110 §9.2.2
allows an automatic retry of an idempotent request then; this pool retries once, on a new connection,
when the method is idempotent or the caller marked the request ``extensions={IDEMPOTENT: True}`` (the
upstreams do so for JSON-RPC methods without side effects).

Everything else is httpx's: request/response conversion, timeouts, error mapping, TLS.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import AsyncIterator
from typing import Any

import httpcore
import httpx

from mcp_eras.bridge import _perf

_environment_proxies = getattr(importlib.import_module("httpx._utils"), "get_environment_proxies", None)

IDEMPOTENT = "mcp_eras.idempotent"
"""Request extension: True when repeating the request has no further effect (a retry is safe)."""

IDEMPOTENT_METHODS = frozenset({b"GET", b"HEAD", b"OPTIONS", b"PUT", b"DELETE", b"TRACE"})
"""RFC 9110 §9.2.2."""

SAFE_RPC_METHODS = frozenset({
    "ping", "server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list",
})
"""JSON-RPC methods that only read (2026-07-28 and 2025-11-25 schema.ts): sending one twice changes nothing."""

STALE_ERRORS = (httpcore.ReadError, httpcore.WriteError, httpcore.RemoteProtocolError)


class _Idle:
    __slots__ = ("conn", "since")

    def __init__(self, conn: httpcore.AsyncHTTPConnection, since: float) -> None:
        self.conn = conn
        self.since = since


class KeepAlivePool:
    """httpcore's pool interface (``handle_async_request``, ``aclose``) over LIFO idle stacks per origin.

    Connections in use are not capped (as before: every pooled 2025 session holds a GET stream);
    idle ones are capped at ``max_idle`` per origin and closed after ``keepalive_expiry`` seconds.
    """

    def __init__(self, ssl_context: Any, keepalive_expiry: float | None = 5.0, max_idle: int = 256) -> None:
        self._ssl_context = ssl_context
        self._expiry = keepalive_expiry
        self._max_idle = max_idle
        self._idle: dict[tuple[bytes, bytes, int], list[_Idle]] = {}  # by (scheme, host, port)
        self._busy: set[httpcore.AsyncHTTPConnection] = set()
        self.retries = 0
        """Requests sent again after a stale keep-alive connection failed them (for tests and metrics)."""
        self.lean: Any = None
        """Connections of the plain HTTP/1.1 path for JSON-RPC POSTs (``lean_http.post``), with the same expiry and
        idle cap: made by ``lean_http.lean_pool`` on first use, closed with this pool."""

    @property
    def keepalive_expiry(self) -> float | None:
        return self._expiry

    @property
    def max_idle(self) -> int:
        return self._max_idle

    @property
    def connections(self) -> int:
        return len(self._busy) + sum(len(stack) for stack in self._idle.values())

    async def handle_async_request(self, request: httpcore.Request) -> httpcore.Response:
        conn, reused = await self._checkout(request.url.origin)
        try:
            response = await conn.handle_async_request(request)
        except STALE_ERRORS:
            self._busy.discard(conn)
            await conn.aclose()
            if not (reused and _idempotent(request)):
                raise
            self.retries += 1
            conn = self._new(request.url.origin)
            response = await self._send_fresh(conn, request)
        except BaseException:
            self._busy.discard(conn)
            await conn.aclose()
            raise
        return httpcore.Response(status=response.status, headers=response.headers,
                                 content=_Released(response.stream, conn, self), extensions=response.extensions)

    async def _send_fresh(self, conn: httpcore.AsyncHTTPConnection, request: httpcore.Request) -> httpcore.Response:
        try:
            return await conn.handle_async_request(request)
        except BaseException:
            self._busy.discard(conn)
            await conn.aclose()
            raise

    async def _checkout(self, origin: httpcore.Origin) -> tuple[httpcore.AsyncHTTPConnection, bool]:
        stack = self._idle.get(_key(origin))
        while stack:
            idle = stack.pop()
            # has_expired: past its keep-alive expiry, or the server closed it (the socket reads EOF).
            if idle.conn.is_idle() and not idle.conn.has_expired():
                self._busy.add(idle.conn)
                return idle.conn, True
            await idle.conn.aclose()
        return self._new(origin), False

    def _new(self, origin: httpcore.Origin) -> httpcore.AsyncHTTPConnection:
        conn = httpcore.AsyncHTTPConnection(origin=origin, ssl_context=self._ssl_context, keepalive_expiry=self._expiry)
        self._busy.add(conn)
        return conn

    async def _checkin(self, conn: httpcore.AsyncHTTPConnection) -> None:
        self._busy.discard(conn)
        if not conn.is_idle():  # closed, or not reusable (Connection: close, a body not read to the end)
            await conn.aclose()
            return
        now = time.monotonic()
        stack = self._idle.setdefault(_key(conn._origin), [])
        stack.append(_Idle(conn, now))
        # The oldest idle connections sit at the bottom: close the ones past expiry, and any over the cap.
        while stack and (len(stack) > self._max_idle or (self._expiry is not None and stack[0].since < now - self._expiry)):
            await stack.pop(0).conn.aclose()

    async def aclose(self) -> None:
        if self.lean is not None:
            self.lean.close()
        conns = [idle.conn for stack in self._idle.values() for idle in stack] + list(self._busy)
        self._idle.clear()
        self._busy.clear()
        for conn in conns:
            await conn.aclose()

    async def __aenter__(self) -> KeepAlivePool:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def rpc_extensions(method: object) -> dict[str, Any]:
    """Request extensions for a POST carrying a JSON-RPC ``method`` (marks the read-only ones idempotent)."""
    return {IDEMPOTENT: True} if method in SAFE_RPC_METHODS else {}


def _key(origin: httpcore.Origin) -> tuple[bytes, bytes, int]:
    return origin.scheme, origin.host, origin.port


def _idempotent(request: httpcore.Request) -> bool:
    return request.method in IDEMPOTENT_METHODS or request.extensions.get(IDEMPOTENT) is True


class _Released:
    """A response body that hands its connection back to the pool when closed."""

    def __init__(self, stream: Any, conn: httpcore.AsyncHTTPConnection, pool: KeepAlivePool) -> None:
        self._stream = stream
        self._conn = conn
        self._pool = pool
        self._closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for part in self._stream:
            yield part

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if hasattr(self._stream, "aclose"):
                await self._stream.aclose()
        finally:
            await self._pool._checkin(self._conn)


class KeepAliveTransport(httpx.AsyncHTTPTransport):
    """``httpx.AsyncHTTPTransport`` (TLS, conversions, error mapping) over a ``KeepAlivePool``."""

    def __init__(self, keepalive_expiry: float | None = 5.0, max_idle: int = 256, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pool = KeepAlivePool(self._pool._ssl_context, keepalive_expiry, max_idle)  # type: ignore[assignment]

    @property
    def pool(self) -> KeepAlivePool:
        return self._pool  # type: ignore[return-value]


class _Cookies(httpx.Cookies):
    """The client's cookie jar (upstreams behind sticky load balancers set cookies). httpx hands every
    response to ``http.cookiejar``, which costs ~5% of a relayed call; most responses set no cookie."""

    def extract_cookies(self, response: httpx.Response) -> None:
        if "set-cookie" in response.headers:
            super().extract_cookies(response)


HTTPX_TESTED = ((0, 29), (0, 30))
HTTPCORE_TESTED = ((1, 0, 9), (1, 1))
"""The versions this pool and ``lean_http`` were tested on (pyproject.toml pins the same ranges)."""


def unsupported() -> tuple[str, str] | None:
    """(distribution, reason) when this pool (and with it ``lean_http``) cannot run on the installed httpx and
    httpcore: a version it was not tested on, or a private attribute it uses gone. None if it can."""
    for dist, (lowest, below) in (("httpx", HTTPX_TESTED), ("httpcore", HTTPCORE_TESTED)):
        if (why := _perf.untested(dist, lowest, below)) is not None:
            return dist, why
    lacking = [*_perf.missing(httpx.AsyncClient, ("_transport", "_cookies")),
               *_perf.missing(httpx.AsyncHTTPTransport, ("_pool",)),
               *([] if _environment_proxies is not None else ["httpx._utils.get_environment_proxies"])]
    if lacking:
        return "httpx", f"it lacks {', '.join(lacking)}"
    lacking = [*_perf.missing(httpcore.AsyncConnectionPool, ("_ssl_context",)),
               *_perf.missing(httpcore.AsyncHTTPConnection, ("_origin", "is_idle", "has_expired", "handle_async_request"))]
    return ("httpcore", f"it lacks {', '.join(lacking)}") if lacking else None


def upstream_client(timeout: httpx.Timeout, keepalive_expiry: float | None, max_idle: int = 256,
                    auth: httpx.Auth | None = None) -> httpx.AsyncClient:
    """The AsyncClient of an HTTP upstream. When the environment names a proxy (HTTP_PROXY and friends),
    httpx's own transports keep serving it as before (this pool speaks to origins directly); so they do, after one
    warning, on an httpx or httpcore this pool was not tested on (``unsupported``). ``auth``: the upstream's sign-in
    (``mcp_eras.bridge.auth.UpstreamOAuth``), run by httpx on every request of the client."""
    why = unsupported()
    if why is not None:
        _perf.fall_back("the upstream keep-alive pool and lean HTTP/1.1 client", *why)
    if why is not None or any(_environment_proxies().values()):  # type: ignore[misc]
        client = httpx.AsyncClient(timeout=timeout, auth=auth, limits=httpx.Limits(
            max_connections=None, max_keepalive_connections=max_idle, keepalive_expiry=keepalive_expiry))
    else:
        client = httpx.AsyncClient(timeout=timeout, auth=auth,
                                   transport=KeepAliveTransport(keepalive_expiry=keepalive_expiry, max_idle=max_idle))
    if why is None:
        client._cookies = _Cookies()  # the ``cookies`` setter would copy into a plain httpx.Cookies
    return client

"""The bridge's own credential at a protected upstream, the I/O half (``translate.gateway.upstream_auth`` decides):
``UpstreamCredentials`` is the ``httpx.Auth`` a server's HTTP clients install (``Target.auth``), so every request of
either era's upstream, the era probe's included, carries the token the server's ``upstream_auth`` obtains:

* ``client_credentials``: the bridge's own token (RFC 6749 section 4.4), one for every caller;
* ``token_exchange``: the caller's own token for the upstream (RFC 8693), obtained with the token the resource
  server validated (``CallContext.subject_token``) and cached per subject. The caller is known from
  ``calling_as``, which the server's gateway layer (``mcp_eras.bridge.layers.policy``) enters around each call: a
  2025 upstream session, keyed by the caller's principal, sends on its caller's behalf even from its own tasks.

A refused request (401) drops the token it carried and is sent once more with a new one. A token request that
fails leaves the request without a credential (the upstream's 401 reaches the caller as its error) and is logged by
its named error, never with a token. The caller's own token never leaves here but as ``subject_token`` to the
configured authorization server (2026-07-28 basic/authorization "Token Passthrough").
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable, Generator, Iterator

import httpx

from mcp_eras.bridge.auth import redact
from mcp_eras.bridge.core import CallContext
from mcp_eras.bridge.translate.gateway import upstream_auth as ua
from mcp_eras.bridge.translate.oauth.model import HttpRequest
from mcp_eras.bridge.translate.oauth.wire import as_metadata_urls, prm_urls

log = logging.getLogger("mcp_bridge.gateway.upstream_auth")

CALLER: contextvars.ContextVar[CallContext | None] = contextvars.ContextVar("mcp_bridge_upstream_caller", default=None)
_LATEST: OrderedDict[str, str] = OrderedDict()
"""The newest validated token seen per subject (a 2025 session's own tasks keep the context of the call that opened
it, whose token may have expired since); bounded by ``LATEST_MAX``."""
LATEST_MAX = 10_000


@contextlib.contextmanager
def calling_as(ctx: CallContext) -> Iterator[None]:
    """Requests made inside (and by tasks started inside) are made for ``ctx``'s caller."""
    token = enter(ctx)
    try:
        yield
    finally:
        CALLER.reset(token)


def enter(ctx: CallContext) -> contextvars.Token[CallContext | None]:
    """``calling_as`` without the context manager (for a layer's hot path): reset ``CALLER`` with the token after."""
    if ctx.subject is not None and ctx.subject_token and _LATEST.get(ctx.subject) != ctx.subject_token:
        _LATEST[ctx.subject] = ctx.subject_token  # (a subject whose token did not change keeps its place)
        _LATEST.move_to_end(ctx.subject)
        while len(_LATEST) > LATEST_MAX:
            _LATEST.popitem(last=False)
    return CALLER.set(ctx)


class TokenUnavailable(Exception):
    def __init__(self, error: str, detail: str = "") -> None:
        super().__init__(f"{error}: {detail}" if detail else error)
        self.error = error


class UpstreamCredentials(httpx.Auth):
    requires_request_body = True  # a refused request is sent again whole

    def __init__(self, auth: ua.UpstreamAuth, upstream_url: str, *, name: str = "upstream", http: httpx.AsyncClient | None = None,
                 clock: Callable[[], float] = time.time, timeout: float = 30.0) -> None:
        if not auth.obtains_tokens:
            raise ValueError(f"upstream_auth {auth.mode!r} obtains no tokens")
        self.auth, self.upstream_url, self.name = auth, upstream_url, name
        self.clock, self.timeout, self._http = clock, timeout, http
        self.cache = ua.TokenCache(auth.cache_entries, auth.cache_bytes, auth.default_ttl)
        self._endpoint: ua.Endpoint | None = None
        self._flights: dict[str, asyncio.Future[str]] = {}
        self.requests = 0
        """Token requests made (for tests and status)."""
        redact.install()
        redact.remember(auth.client_secret)

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        raise RuntimeError("UpstreamCredentials needs an httpx.AsyncClient")
        yield request  # pragma: no cover

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        key, subject_token = self._caller()
        request.headers.pop("authorization", None)  # only the credential obtained here goes to the upstream
        sent = await self._token_or_none(key, subject_token)
        if sent is not None:
            request.headers["Authorization"] = f"Bearer {sent}"
        response = yield request
        if response.status_code != 401 or sent is None:
            return
        self.cache.drop(key)  # refused: revoked or expired early
        fresh = await self._token_or_none(key, subject_token)
        if fresh is None or fresh == sent:
            return
        request.headers["Authorization"] = f"Bearer {fresh}"
        yield request

    def _caller(self) -> tuple[str, str | None]:
        if not self.auth.per_caller:
            return ua.BRIDGE_KEY, None
        ctx = CALLER.get()
        if ctx is None or ctx.subject is None:
            return ua.BRIDGE_KEY, None
        return ctx.subject, _LATEST.get(ctx.subject) or ctx.subject_token

    async def _token_or_none(self, key: str, subject_token: str | None) -> str | None:
        if self.auth.per_caller and (key == ua.BRIDGE_KEY or not subject_token):
            return None  # a token exchange needs a caller validated by the resource server
        try:
            return await self.token(key, subject_token)
        except TokenUnavailable as exc:
            log.warning("upstream %s: no %s token (%s)", self.name, self.auth.mode, exc,
                        extra={"event": "upstream_token_failed", "server": self.name, "error": exc.error})
            return None

    async def token(self, key: str, subject_token: str | None = None) -> str:
        """The token for ``key`` (cached, else obtained once however many requests wait for it)."""
        cached = self.cache.get(key, self.clock())
        if cached is not None:
            return cached.value
        flight = self._flights.get(key)
        if flight is not None:
            return await asyncio.shield(flight)
        flight = asyncio.get_running_loop().create_future()
        self._flights[key] = flight
        try:
            value = await self._obtain(key, subject_token)
            flight.set_result(value)
            return value
        except BaseException as exc:
            flight.set_exception(exc if isinstance(exc, TokenUnavailable) else TokenUnavailable("http_error", type(exc).__name__))
            flight.exception()  # retrieved: nobody else may be waiting
            raise
        finally:
            self._flights.pop(key, None)

    async def _obtain(self, key: str, subject_token: str | None) -> str:
        endpoint = await self._token_endpoint()
        request = ua.token_request(self.auth, endpoint, self.upstream_url, subject_token)
        self.requests += 1
        status, body = await self._send(request)
        answer = ua.token_answer(status, body, self.clock(), exchange=self.auth.per_caller)
        if isinstance(answer, ua.TokenRefused):
            raise TokenUnavailable(answer.error, answer.detail)
        redact.remember(answer.value)
        evicted = self.cache.put(key, answer, self.clock())
        if evicted is None:
            log.warning("upstream %s: a token of %d bytes exceeds the cache (%d bytes): used once, not kept", self.name,
                        answer.size, self.auth.cache_bytes, extra={"event": "upstream_token_not_cached", "server": self.name})
        elif evicted:
            log.info("upstream %s: token cache full (%d entries, %d bytes): %d least recently used dropped", self.name,
                     self.auth.cache_entries, self.auth.cache_bytes, len(evicted),
                     extra={"event": "upstream_token_evicted", "server": self.name, "evicted": len(evicted)})
        return answer.value

    async def _token_endpoint(self) -> ua.Endpoint:
        if self._endpoint is not None:
            return self._endpoint
        if self.auth.token_endpoint is not None:
            self._endpoint = ua.Endpoint(self.auth.token_endpoint, ua.pick_auth_method(self.auth, None))
            return self._endpoint
        issuer = self.auth.issuer or await self._issuer_from_upstream()
        problem = f"no authorization server metadata for {issuer}"
        for url in as_metadata_urls(issuer):
            status, body = await self._send(HttpRequest("GET", url, headers={"Accept": "application/json"}, purpose="metadata"))
            if status == 200:
                found = ua.endpoint_from_metadata(self.auth, body, issuer)
                if isinstance(found, ua.Endpoint):
                    self._endpoint = found
                    return found
                problem = found
                break
        raise TokenUnavailable("no_token_endpoint", problem)

    async def _issuer_from_upstream(self) -> str:
        for url in prm_urls(self.upstream_url, None):  # RFC 9728 section 3.1: path-inserted, then root
            status, body = await self._send(HttpRequest("GET", url, headers={"Accept": "application/json"}, purpose="metadata"))
            if status == 200 and (issuer := ua.issuer_from_resource_metadata(body, self.upstream_url)) is not None:
                return issuer
        raise TokenUnavailable("no_token_endpoint", f"no protected resource metadata naming an authorization server for "
                                                    f"{self.upstream_url}; configure token_endpoint or issuer")

    async def _send(self, request: HttpRequest) -> tuple[int, bytes]:
        client = self._http or httpx.AsyncClient(follow_redirects=False)
        try:
            response = await client.request(request.method, request.url, headers=request.headers, data=request.form,
                                            timeout=self.timeout, follow_redirects=False)
            return response.status_code, response.content
        except httpx.HTTPError as exc:
            raise TokenUnavailable("http_error", f"{request.purpose} at {request.url}: {type(exc).__name__}") from None
        finally:
            if self._http is None:
                await client.aclose()

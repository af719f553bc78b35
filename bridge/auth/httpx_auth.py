"""``UpstreamOAuth``: the ``httpx.Auth`` an upstream HTTP client installs to reach an OAuth-protected MCP
server. Per request: the operator's explicit ``Authorization`` header wins; the bearer goes only to the
resource it was issued for (MCP 2026-07-28 "Token Handling"; RFC 8707); a token due for refresh is
refreshed first; on 401 (or 403 ``insufficient_scope``, "Step-Up Authorization Flow") the sign-in runs and
the request is retried once with the new token."""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Generator

import anyio
import httpx

from mcp_eras.bridge.translate.oauth import OAuthError
from mcp_eras.bridge.translate.oauth.wire import bearer_challenge, origin, resource_covers

from .runner import OAuthOptions, SignInRunner

log = logging.getLogger("mcp_eras.bridge.auth")


class SignInFailed(httpx.RequestError):
    """A sign-in (or refresh) for an upstream request failed: the machine's named error (``error``) as the transport error
    the upstreams already answer their callers with (-32603 naming it), instead of an exception they do not know."""

    def __init__(self, exc: OAuthError, request: httpx.Request) -> None:
        detail = f" ({exc.detail})" if exc.detail else ""
        super().__init__(f"OAuth sign-in to {request.url.copy_with(query=None)} failed: {exc.error}{detail}", request=request)
        self.error = exc.error


class UpstreamOAuth(httpx.Auth):
    requires_request_body = True  # a retried request is sent again whole

    def __init__(self, runner: SignInRunner, *, operator_authorization: bool = False) -> None:
        """``operator_authorization``: the operator configured an ``Authorization`` header for this upstream (``-H``),
        which is then sent as given. Any other ``Authorization`` on a request is a caller's, meant for the bridge:
        it is replaced by the bridge's own sign-in, never passed through (2026-07-28 basic/authorization "Token
        Passthrough")."""
        self.runner = runner
        self.operator_authorization = operator_authorization
        self._lock = anyio.Lock()
        self._told_dropped = False

    def covers(self, url: httpx.URL) -> bool:
        """Whether a request to ``url`` may carry this upstream's token: same origin as the upstream, and
        inside the resource the token was issued for."""
        target = str(url.copy_with(query=None, fragment=None))
        if origin(target) != origin(self.runner.server_url):
            return False
        resource = (self.runner.tokens or {}).get("resource")
        return resource is None or resource_covers(resource, target)

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        raise RuntimeError("UpstreamOAuth needs an httpx.AsyncClient")
        yield request  # pragma: no cover

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        if "authorization" in request.headers:
            if self.operator_authorization:
                yield request  # an operator's explicit header is sent as given
                return
            del request.headers["authorization"]  # a caller's: the bridge signs in itself
            if not self._told_dropped:
                self._told_dropped = True
                log.info("oauth: a caller's Authorization header is not sent to %s: the bridge signs in itself",
                         self.runner.server_url)
        sent = await self.authorization_for(request.url)
        if sent is not None:
            request.headers["Authorization"] = sent
        response = yield request
        try:
            retry = await self.after_response(request.url, response.status_code, response.headers.get_list("www-authenticate"),
                                              sent)
        except OAuthError as exc:
            raise SignInFailed(exc, request) from None
        if retry is None:
            return
        request.headers["Authorization"] = retry
        retried = yield request
        await self.after_response(request.url, retried.status_code, [], retry, final=True)

    # The same decisions without httpx's Auth machinery, for an upstream path that builds its own requests
    # (a raw HTTP/1.1 client): ask for the header before sending, report the answer after.

    async def authorization_for(self, url: httpx.URL | str) -> str | None:
        """The ``Authorization`` value for a request to ``url`` (refreshing first when due), or None: no token
        yet, or ``url`` is not the resource the token was issued for."""
        if not self.covers(httpx.URL(str(url))):
            return None
        token = await self._fresh_token()
        return f"Bearer {token}" if token is not None else None

    async def after_response(
        self, url: httpx.URL | str, status: int, www_authenticate: list[str], sent: str | None, *, final: bool = False
    ) -> str | None:
        """After the upstream answered: the ``Authorization`` value to retry the request with once (a 401, or
        a 403 asking for more scope, from the resource this auth serves), or None to keep the answer.
        ``final``: this was the retry; nothing more is attempted. Raises ``OAuthError`` when a sign-in fails."""
        if status < 400:
            if sent is not None:
                self.runner.succeeded()
            return None
        if final or not self.covers(httpx.URL(str(url))) or not _wants_sign_in(status, www_authenticate):
            return None
        token = await self._after_refusal(status, www_authenticate, sent[len("Bearer "):] if sent else None)
        return f"Bearer {token}"

    async def _fresh_token(self) -> str | None:
        if not self.runner.refresh_due():
            return self.runner.usable_token()
        async with self._lock:
            if self.runner.refresh_due():
                try:
                    return await self.runner.refresh()
                except OAuthError as exc:
                    log.info("oauth: refresh for %s failed (%s); signing in again when asked", self.runner.server_url, exc.error)
                    self.runner.forget()
                    return None
            return self.runner.usable_token()

    async def _after_refusal(self, status: int, www_authenticate: list[str], sent: str | None) -> str:
        """The token to retry with after a 401/403: another request's fresh one, or what the sign-in gives (one
        at a time: concurrent refusals wait for the first sign-in instead of opening more browsers)."""
        async with self._lock:
            current = self.runner.usable_token()
            if status == 401 and current is not None and current != sent:
                return current
            # The machine rediscovers, then refreshes when the server is unchanged, else opens the browser.
            return await self.runner.sign_in(status, www_authenticate)


def _wants_sign_in(status: int, www_authenticate: list[str]) -> bool:
    if status == 401:
        return True
    if status != 403:
        return False
    challenge = bearer_challenge(www_authenticate)
    return challenge.error == "insufficient_scope" or (challenge.error is None and challenge.scope is not None)


def build_auth(server_url: str, options: OAuthOptions | None = None, *, operator_authorization: bool = False,
               **runner_kwargs: object) -> UpstreamOAuth:
    """The hook an HTTP upstream installs: ``httpx.AsyncClient(..., auth=build_auth(url, options))``."""
    return UpstreamOAuth(SignInRunner(server_url, options, **runner_kwargs),  # type: ignore[arg-type]
                         operator_authorization=operator_authorization)

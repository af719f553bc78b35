"""Runs the pure sign-in machine (bridge/translate/oauth) for one upstream: performs its HTTP requests with
httpx (a client of its own, no redirects followed, a timeout on each), opens the browser, waits on the
loopback listener until the machine's deadline, keeps the token store. Time and entropy are fed in here."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

from mcp_eras.bridge.translate.oauth import (
    AwaitRedirect,
    Done,
    Event,
    Fail,
    HttpRequest,
    HttpResponse,
    OAuthError,
    OpenBrowser,
    Redirected,
    RefreshNow,
    SignIn,
    SignInState,
    Store,
    Succeeded,
    Unauthorized,
    refresh_due,
)

from . import redact
from .browser import Opener, open_in_browser
from .listener import ListenerTimeout, RedirectListener
from .store import TokenStore, client_key

log = logging.getLogger("mcp_eras.bridge.auth")
# Errors of the shell itself, next to the machine's ERRORS: an HTTP exchange that failed or timed out, and
# a sign-in the user did not finish before the deadline.
SHELL_ERRORS = {"http_error": "an OAuth HTTP request failed or timed out", "sign_in_timeout": "no sign-in before the deadline"}


@dataclass(frozen=True)
class OAuthOptions:
    """The operator's OAuth settings (``--oauth-*`` flags)."""

    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    scope: str | None = None
    redirect_port: int = 0
    token_store: str | None = None
    client_name: str = "mcp-eras bridge"
    max_step_ups: int = 2
    sign_in_timeout: float = 300.0
    http_timeout: float = 30.0
    require_pkce_metadata: bool = False


class SignInRunner:
    """The shell around one upstream's ``SignIn`` machine. Not re-entrant: callers serialize (``UpstreamOAuth``
    holds a lock around every call that can change the tokens)."""

    def __init__(
        self,
        server_url: str,
        options: OAuthOptions | None = None,
        *,
        store: TokenStore | None = None,
        opener: Opener = open_in_browser,
        http: httpx.AsyncClient | None = None,
        clock: Callable[[], float] = time.time,
        entropy: Callable[[int], bytes] = os.urandom,
    ) -> None:
        self.server_url = server_url
        self.options = options or OAuthOptions()
        self.store = store if store is not None else TokenStore(self.options.token_store)
        self.opener = opener
        self.clock, self.entropy = clock, entropy
        self._http = http
        self.client_key = client_key(self.options.client_id, self.options.client_metadata_url)
        o = self.options
        redact.install()
        redact.remember(o.client_secret)
        self.machine = SignIn(
            SignInState(
                server_url=server_url,
                redirect_uri=f"http://127.0.0.1:{o.redirect_port}/callback",
                client_id=o.client_id,
                client_secret=o.client_secret,
                client_metadata_url=o.client_metadata_url,
                client_name=o.client_name,
                scope_override=o.scope,
                max_step_ups=o.max_step_ups,
                redirect_timeout=o.sign_in_timeout,
                require_pkce_metadata=o.require_pkce_metadata,
            )
        )
        self._loaded = False
        self._port = self.options.redirect_port

    # ---- tokens ----

    @property
    def tokens(self) -> dict[str, Any] | None:
        if not self._loaded:
            self._loaded = True
            stored = self.store.load(self.server_url, self.client_key)
            if stored is not None and isinstance(stored.get("access_token"), str):
                redact.remember(stored.get("access_token"), stored.get("refresh_token"))
                self.machine.state.tokens = stored
                client = stored.get("client")
                if isinstance(client, dict) and client.get("kind") == "dcr":
                    self.machine.state.client = dict(client)  # a registration is reused while its server stays
        return self.machine.state.tokens

    def usable_token(self) -> str | None:
        """The access token to send now, or None (none held, or it has expired)."""
        tokens = self.tokens
        if not tokens:
            return None
        expires = tokens.get("expires_at")
        if expires is not None and self.clock() >= float(expires):
            return None
        return str(tokens["access_token"])

    def refresh_due(self) -> bool:
        tokens = self.tokens
        return bool(tokens and tokens.get("refresh_token") and refresh_due(tokens, self.clock()))

    def forget(self) -> None:
        """Drop the tokens (memory and store), e.g. after a refused refresh."""
        self.machine.state.tokens = None
        self.store.delete(self.server_url, self.client_key)

    def succeeded(self) -> None:
        self.machine.handle(Succeeded())

    # ---- running the machine ----

    async def sign_in(self, status: int = 401, www_authenticate: list[str] | str | None = None) -> str:
        """A full (or step-up) sign-in from the upstream's 401/403; returns the new access token."""
        self.tokens  # noqa: B018 -- load what is stored first: a stored registration may be reused
        log.info("oauth: %s needs sign-in (HTTP %s); starting authorization", self.server_url, status)
        try:
            listener = await RedirectListener(self._port).__aenter__()
        except OSError:  # the port of the last sign-in is taken now: any free one
            listener = await RedirectListener(self.options.redirect_port).__aenter__()
        try:
            # One port per process: a registration made for this redirect URI stays usable for step-ups.
            self._port = listener.port
            self.machine.state.redirect_uri = listener.redirect_uri
            event = Unauthorized(status, www_authenticate, self.clock(), self.entropy(64))
            return await self._run(event, listener)
        finally:
            await listener.close()

    async def refresh(self) -> str:
        """Refresh under the store's lock. Another process (a second bridge, ``auth login``) may have refreshed
        this sign-in meanwhile: its stored tokens are adopted instead of spending a refresh token that has
        already been used."""
        held = (self.tokens or {}).get("access_token")
        async with self.store.locked(self.server_url, self.client_key, timeout=2 * self.options.http_timeout):
            stored = self.store.load(self.server_url, self.client_key)
            access = (stored or {}).get("access_token")
            if stored is not None and isinstance(access, str) and access != held and not refresh_due(stored, self.clock()):
                redact.remember(access, stored.get("refresh_token"))
                self.machine.state.tokens = stored
                log.info("oauth: %s was refreshed by another process; using its tokens", self.server_url)
                return access
            log.info("oauth: refreshing the access token for %s", self.server_url)
            return await self._run(RefreshNow(self.clock()), None)

    async def _run(self, event: Event, listener: RedirectListener | None) -> str:
        pending: list[Event] = [event]
        while pending:
            actions = self.machine.handle(pending.pop(0))
            for action in actions:
                if isinstance(action, AwaitRedirect) and listener is not None:
                    listener.expect(action.state)  # armed before the browser opens
            for action in actions:
                if isinstance(action, HttpRequest):
                    pending.append(await self._perform(action))
                elif isinstance(action, OpenBrowser):
                    await anyio.to_thread.run_sync(self.opener, action.url)
                elif isinstance(action, AwaitRedirect):
                    pending.append(await self._await_redirect(action, listener))
                elif isinstance(action, Store):
                    redact.remember(action.tokens.get("access_token"), action.tokens.get("refresh_token"))
                    self.store.save(self.server_url, self.client_key, action.tokens)
                elif isinstance(action, Done):
                    log.info("oauth: signed in to %s", self.server_url)
                    return action.access_token
                elif isinstance(action, Fail):
                    log.warning("oauth: sign-in to %s failed: %s %s", self.server_url, action.error, action.detail)
                    raise OAuthError(action.error, action.detail)
        raise OAuthError("bad_config", "the sign-in machine stopped without an outcome")

    async def _await_redirect(self, action: AwaitRedirect, listener: RedirectListener | None) -> Redirected:
        if listener is None:
            raise OAuthError("bad_config", "an authorization step without a redirect listener")
        remaining = action.deadline - self.clock()
        log.info("oauth: waiting up to %.0fs for the browser sign-in to come back to %s", remaining, listener.redirect_uri)
        try:
            query = await listener.wait(action.state, remaining)
        except ListenerTimeout as exc:
            raise OAuthError("sign_in_timeout", str(exc)) from None
        redact.remember(query.get("code"))
        return Redirected(query, self.clock())

    async def _perform(self, action: HttpRequest) -> HttpResponse:
        client = self._http or httpx.AsyncClient(follow_redirects=False)
        try:
            with anyio.fail_after(self.options.http_timeout):
                response = await client.request(
                    action.method,
                    action.url,
                    headers=action.headers,
                    data=action.form,
                    json=action.json,
                    timeout=self.options.http_timeout,
                    follow_redirects=False,
                )
        except (httpx.HTTPError, TimeoutError) as exc:
            raise OAuthError("http_error", f"{action.purpose} at {action.url}: {type(exc).__name__}") from None
        finally:
            if self._http is None:
                await client.aclose()
        return HttpResponse(response.status_code, dict(response.headers), response.content, self.clock())

"""The resource-server guard of the HTTP fronts (single server and fleet): an ASGI middleware that serves the
protected resource metadata (RFC 9728) at each endpoint's well-known path and lets a request reach an MCP
endpoint only with a valid access token for THAT endpoint (2025-11-25 and 2026-07-28 basic/authorization).

A refusal is 401 (no, or an invalid, token) or 403 (a missing scope) with ``WWW-Authenticate: Bearer
resource_metadata=...`` (RFC 9728 section 5.1, RFC 6750 section 3); other paths (health, metrics, admin) pass
untouched. An accepted request runs with its ``identity.Caller`` set; the fronts build the call's context from it
(``authorization`` stays None: the caller's token never reaches an upstream).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from starlette.middleware import Middleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_eras.bridge.gateway.identity import CALLER, Caller
from mcp_eras.bridge.gateway.verify import Introspection, TokenVerifier
from mcp_eras.bridge.translate.gateway import jwks as jp
from mcp_eras.bridge.translate.gateway import resource as rs
from mcp_eras.bridge.translate.gateway import tokens as tk

log = logging.getLogger("mcp_bridge.gateway")
CLIENT_ID_ENV, CLIENT_SECRET_ENV = "MCP_BRIDGE_AUTH_CLIENT_ID", "MCP_BRIDGE_AUTH_CLIENT_SECRET"
"""The introspection client's credentials (RFC 7662 section 2.1: the resource server authenticates itself)."""
RULES_KEPT = 4096
"""Resources whose token rules are kept (a fleet's servers; paths of unknown servers are not worth more)."""
FLEET_ENDPOINT = re.compile(r"^/servers/([A-Za-z0-9._-]{1,64})/mcp/?$")


@dataclass(frozen=True)
class AuthConfig:
    """``--auth-*`` (single server) or the fleet's ``[auth]`` table."""

    issuer: str
    audience: str
    """Single server: the endpoint's public URL; fleet: the fleet's public base URL."""
    required_scopes: tuple[str, ...] = ()
    introspection_url: str | None = None
    introspection_client_id: str | None = None
    introspection_client_secret: str | None = field(default=None, repr=False)
    jwks_min_interval: float = jp.JwksPolicy.min_interval
    clock_skew: int = tk.DEFAULT_SKEW

    def introspection(self) -> Introspection | None:
        if not self.introspection_url:
            return None
        return Introspection(self.introspection_url, self.introspection_client_id, self.introspection_client_secret)


Locate = Callable[[str], rs.ProtectedResource | None]
"""A request path -> the protected resource it is the MCP endpoint of, or None."""


def single(config: AuthConfig, endpoint_path: str) -> tuple[Locate, dict[str, rs.ProtectedResource]]:
    """One endpoint: protected at ``endpoint_path``; its metadata at the well-known paths for that path and for the
    audience's path (they differ behind a proxy that rewrites the prefix) and at the bare well-known path."""
    prm = rs.ProtectedResource(config.audience, config.issuer, config.required_scopes)
    paths = {rs.well_known_path(endpoint_path), rs.well_known_path(urlsplit(config.audience).path), rs.WELL_KNOWN}
    return (lambda path: prm if path.rstrip("/") == endpoint_path.rstrip("/") else None), dict.fromkeys(paths, prm)


def fleet(config: AuthConfig) -> tuple[Locate, Callable[[str], rs.ProtectedResource | None]]:
    """Every ``/servers/NAME/mcp``, each its own resource (``resource.fleet_resource``)."""
    def locate(path: str) -> rs.ProtectedResource | None:
        match = FLEET_ENDPOINT.match(path)
        if match is None:
            return None
        return rs.ProtectedResource(rs.fleet_resource(config.audience, match.group(1)), config.issuer, config.required_scopes)

    def document(path: str) -> rs.ProtectedResource | None:
        return locate(path[len(rs.WELL_KNOWN):]) if path.startswith(rs.WELL_KNOWN + "/") else None

    return locate, document


def _json(status: int, body: object, headers: dict[str, str] | None = None) -> tuple[int, bytes, list[tuple[bytes, bytes]]]:
    raw = json.dumps(body).encode()
    fields = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    fields += [(k.lower().encode(), v.encode("latin-1")) for k, v in (headers or {}).items()]
    return status, raw, fields


async def _send(send: Send, answer: tuple[int, bytes, list[tuple[bytes, bytes]]]) -> None:
    status, body, headers = answer
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class ResourceGuard:
    """ASGI middleware: ``Starlette(middleware=[Middleware(ResourceGuard, config=..., locate=..., document=...)])``."""

    def __init__(self, app: ASGIApp, config: AuthConfig, locate: Locate, document: Callable[[str], rs.ProtectedResource | None],
                 verifier: TokenVerifier | None = None, on_refused: Callable[[str, tk.Refused], None] | None = None,
                 on_built: Callable[[ResourceGuard], None] | None = None) -> None:
        """``on_refused(path, refusal)``: told of each refusal (a fleet counts them in /metrics); ``on_built(guard)``:
        handed this guard once built (a fleet's reload reconfigures it, ``reconfigure_fleet``)."""
        self.app = app
        self.on_refused = on_refused
        self.config = config
        self.locate = locate
        self.document = document
        self.verifier = verifier or _verifier(config)
        self._rules: dict[str, tk.TokenRules] = {}
        """Per resource (each fleet server's): what its tokens must be."""
        self.refusals: dict[str, int] = {}
        """Refusals by reason (for tests and the operator's logs)."""
        self._retired: set[TokenVerifier] = set()
        """Verifiers a reconfiguration replaced, closed once the requests they may still be checking are done."""
        self._retiring: set[asyncio.Task[None]] = set()
        if on_built is not None:
            on_built(self)

    def reconfigure_fleet(self, config: AuthConfig) -> None:
        """A fleet reload's ``[auth]``: from the next request on, tokens are checked by ``config`` (issuer, audience,
        required scopes, clock skew, introspection, key refetch interval) with a new verifier: its keys and cached
        answers are fetched again for the new rules. The old verifier closes after ``RETIRE_AFTER`` seconds (a check
        under way finishes with it: its HTTP calls are bounded by the verifier's timeout)."""
        old = self.verifier
        self.config = config
        self.locate, self.document = fleet(config)
        self.verifier = _verifier(config)
        self._rules = {}
        if isinstance(old, TokenVerifier):
            self._retired.add(old)
            with contextlib.suppress(RuntimeError):  # (no running loop: closed by ``aclose``)
                task = asyncio.get_running_loop().create_task(self._retire(old))
                self._retiring.add(task)
                task.add_done_callback(self._retiring.discard)

    async def _retire(self, verifier: TokenVerifier) -> None:
        await asyncio.sleep(RETIRE_AFTER)
        if verifier in self._retired:
            self._retired.discard(verifier)
            await verifier.aclose()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # the key fetcher's connections close with the app
            async def closing(message: Message) -> None:
                if message["type"] in ("lifespan.shutdown.complete", "lifespan.shutdown.failed"):
                    await self.aclose()
                await send(message)

            await self.app(scope, receive, closing)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope["path"], scope["method"]
        if method in ("GET", "HEAD") and path.startswith(rs.WELL_KNOWN):
            prm = self.document(path)
            if prm is not None:  # public, read by browser-based clients too (RFC 9728 section 3.2)
                await _send(send, _json(200, prm.document(), {"Access-Control-Allow-Origin": "*", "Cache-Control": "max-age=300"}))
                return
        prm = self.locate(path) if method != "OPTIONS" else None
        if prm is None:
            await self.app(scope, receive, send)
            return
        authorization = None
        for key, value in scope["headers"]:
            if key == b"authorization":
                authorization = value.decode("latin-1")
                break
        rules = self._rules.get(prm.resource)
        if rules is None:
            rules = tk.TokenRules(self.config.issuer, frozenset({prm.resource, self.config.audience}),
                                  frozenset(self.config.required_scopes), skew=self.config.clock_skew)
            if len(self._rules) < RULES_KEPT:
                self._rules[prm.resource] = rules
        verdict = await self.verifier.verify(authorization, rules)
        if isinstance(verdict, tk.Refused):
            self.refusals[verdict.description] = self.refusals.get(verdict.description, 0) + 1
            log.info("refused a request to %s: %s", path, verdict.description)
            if self.on_refused is not None:
                self.on_refused(path, verdict)
            headers = {"WWW-Authenticate": prm.challenge(verdict)} if verdict.status in (401, 403) else {}
            body = {"error": verdict.error or "unauthorized" if verdict.status < 500 else "temporarily_unavailable",
                    "error_description": verdict.description}
            await _send(send, _json(verdict.status, body, headers))
            return
        token = CALLER.set(Caller.of(verdict, authorization.split(None, 1)[1].strip() if authorization else ""))
        try:
            await self.app(scope, receive, send)
        finally:
            CALLER.reset(token)

    async def aclose(self) -> None:
        for task in list(self._retiring):
            task.cancel()
        retired, self._retired = list(self._retired), set()
        for verifier in [*retired, self.verifier]:
            await verifier.aclose()


RETIRE_AFTER = 30.0
"""Seconds a verifier a reload replaced stays open for the checks under way (longer than its HTTP timeout)."""


def _verifier(config: AuthConfig) -> TokenVerifier:
    return TokenVerifier(
        tk.TokenRules(config.issuer, frozenset({config.audience}), frozenset(config.required_scopes), skew=config.clock_skew),
        policy=jp.JwksPolicy(min_interval=config.jwks_min_interval), introspection=config.introspection())


def config_from_settings(settings: Any) -> AuthConfig:
    """``--auth-*`` as an ``AuthConfig``; the introspection client's credentials come from the environment only."""
    assert settings.auth_issuer and settings.auth_audience
    return AuthConfig(settings.auth_issuer, settings.auth_audience, tuple(settings.auth_required_scopes),
                      settings.auth_introspection_url, os.environ.get(CLIENT_ID_ENV), os.environ.get(CLIENT_SECRET_ENV),
                      clock_skew=settings.auth_clock_skew)


def single_middleware(settings: Any, path: str) -> Middleware:
    config = config_from_settings(settings)
    locate, documents = single(config, path)
    return Middleware(ResourceGuard, config=config, locate=locate, document=documents.get)


def fleet_middleware(config: AuthConfig, metrics: Any = None, known: Callable[[str], bool] = lambda name: True,
                     on_built: Callable[[ResourceGuard], None] | None = None) -> Middleware:
    """``metrics``: the fleet's (``fleet.metrics.Metrics``), which then counts refusals by server (``known`` ones; others
    as "unknown": a path is the caller's to choose) and error (RFC 6750 code, "no_token" or "unavailable")."""
    locate, document = fleet(config)
    on_refused = None
    if metrics is not None:
        metrics.counter("auth_refusals_total", "Requests the resource-server front refused, by server and error.", ("server", "error"))

        def on_refused(path: str, refused: tk.Refused) -> None:
            match = FLEET_ENDPOINT.match(path)
            server = match.group(1) if match is not None and known(match.group(1)) else "unknown"
            error = refused.error or ("unavailable" if refused.status >= 500 else "no_token")
            metrics.inc("auth_refusals_total", {"server": server, "error": error})

    return Middleware(ResourceGuard, config=config, locate=locate, document=document, on_refused=on_refused, on_built=on_built)


def fleet_config(table: Any) -> AuthConfig:
    """A fleet's ``[auth]`` table (``fleet.config.AuthTable``) as an ``AuthConfig``."""
    return AuthConfig(table.issuer, table.audience, tuple(table.required_scopes), table.introspection_url,
                      os.environ.get(CLIENT_ID_ENV), os.environ.get(CLIENT_SECRET_ENV), table.jwks_min_interval,
                      table.clock_skew)

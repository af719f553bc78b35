"""The bridge's own credential at a protected upstream (issue 34), as pure code: the token requests, what their
answers mean, where the token endpoint is found, and the bounded cache of the tokens obtained.

A server's ``upstream_auth`` is one of:

* ``none``: no credential (with a front that checks no token, the caller's header is forwarded: the transparent
  mode; behind a resource server nothing is, 2026-07-28 basic/authorization "Token Passthrough");
* ``header``: a static header from the config or an environment variable (sent as a configured header);
* ``client_credentials``: the bridge's own client at the upstream's authorization server (RFC 6749 section 4.4),
  with the upstream as the RFC 8707 ``resource``: one token for every caller;
* ``token_exchange``: RFC 8693 at the configured token endpoint: the caller's validated token as ``subject_token``,
  the upstream as ``resource`` (and ``audience`` when configured); one token per caller (subject), cached until it
  is due for renewal.

The token endpoint is the configured one, else the one the authorization server's metadata names (RFC 8414, found
from ``issuer``, else from the upstream's protected resource metadata, RFC 9728): the discovery of the MCP
authorization client (``mcp_eras.bridge.translate.oauth.wire``).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from mcp_eras.bridge.translate.oauth.model import HttpRequest
from mcp_eras.bridge.translate.oauth.wire import canonical_resource, client_auth, issuer_matches, json_object

MODES = ("none", "header", "client_credentials", "token_exchange")
TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
"""RFC 8693 section 2.1 ``grant_type``."""
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
"""RFC 8693 section 3: the type of the caller's token (``subject_token_type``) and of the token asked for."""
CLIENT_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none")
_FORM = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
RENEW_EARLY = 60.0
"""Seconds before its expiry a token is renewed (as the sign-in's refresh does, ``oauth.model.refresh_at``)."""
BRIDGE_KEY = ""
"""The cache key of the bridge's own (client credentials) token; a caller's key is its subject."""


@dataclass(frozen=True)
class UpstreamAuth:
    """One server's ``upstream_auth``, secrets resolved."""

    mode: str = "none"
    header: str = "Authorization"
    """``header``: the header's name."""
    value: str | None = field(default=None, repr=False)
    """``header``: its value."""
    token_endpoint: str | None = None
    issuer: str | None = None
    """Where to find the token endpoint when it is not given (RFC 8414 metadata)."""
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    auth_method: str | None = None
    """Client authentication at the token endpoint (RFC 6749 section 2.3.1); default: what the metadata offers,
    ``client_secret_basic`` when unknown and a secret is given, else ``none``."""
    resource: str | None = None
    """RFC 8707 ``resource`` (default: the upstream's URL)."""
    audience: str | None = None
    """RFC 8693 ``audience``, when the authorization server wants one."""
    scope: str | None = None
    cache_entries: int = 10_000
    cache_bytes: int = 16 << 20
    default_ttl: float = 300.0
    """Seconds a token whose answer has no ``expires_in`` is kept (RFC 6749 section 5.1 only recommends it)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"upstream_auth mode must be one of {', '.join(MODES)}")
        if self.mode == "header" and not self.value:
            raise ValueError("upstream_auth 'header' needs a value (or an environment variable holding it)")
        if self.mode in ("client_credentials", "token_exchange") and not self.client_id:
            raise ValueError(f"upstream_auth {self.mode!r} needs the bridge's client_id at the authorization server")
        if self.auth_method is not None and self.auth_method not in CLIENT_AUTH_METHODS:
            raise ValueError(f"auth_method must be one of {', '.join(CLIENT_AUTH_METHODS)}")

    @property
    def obtains_tokens(self) -> bool:
        return self.mode in ("client_credentials", "token_exchange")

    @property
    def per_caller(self) -> bool:
        return self.mode == "token_exchange"


# ---- the token endpoint ----


@dataclass(frozen=True)
class Endpoint:
    url: str
    auth_method: str


def pick_auth_method(auth: UpstreamAuth, asm: dict[str, Any] | None) -> str:
    """The configured method, else the first of basic/post the metadata offers (RFC 8414 section 2: absent means
    ``client_secret_basic``), else ``none`` for a client without a secret."""
    if auth.auth_method is not None:
        return auth.auth_method
    if auth.client_secret is None:
        return "none"
    offered = (asm or {}).get("token_endpoint_auth_methods_supported") or ["client_secret_basic"]
    return next((m for m in ("client_secret_basic", "client_secret_post") if m in offered), "client_secret_basic")


def endpoint_from_metadata(auth: UpstreamAuth, asm_body: bytes, issuer: str) -> Endpoint | str:
    """The token endpoint an authorization server's metadata names, or why it cannot be used."""
    asm = json_object(asm_body)
    if asm is None:
        return "authorization server metadata is not a JSON object"
    found = asm.get("issuer")
    if not isinstance(found, str) or not issuer_matches(found, issuer):
        return f"authorization server metadata names issuer {found!r}, fetched for {issuer!r}"  # RFC 8414 section 3.3
    endpoint = asm.get("token_endpoint")
    if not isinstance(endpoint, str):
        return "authorization server metadata without token_endpoint"
    grants = asm.get("grant_types_supported")
    wanted = "client_credentials" if auth.mode == "client_credentials" else TOKEN_EXCHANGE_GRANT
    if isinstance(grants, list) and wanted not in grants:
        return f"the authorization server does not offer the {wanted} grant"
    return Endpoint(endpoint, pick_auth_method(auth, asm))


def issuer_from_resource_metadata(body: bytes, upstream_url: str) -> str | None:
    """The first authorization server of the upstream's protected resource metadata (RFC 9728 section 2), when the
    document is for that upstream."""
    prm = json_object(body)
    if prm is None or not isinstance(prm.get("resource"), str):
        return None
    try:
        if canonical_resource(prm["resource"]) != canonical_resource(upstream_url):
            return None
    except ValueError:
        return None
    servers = prm.get("authorization_servers")
    return servers[0] if isinstance(servers, list) and servers and isinstance(servers[0], str) else None


# ---- token requests and answers ----


def token_request(auth: UpstreamAuth, endpoint: Endpoint, upstream_url: str, subject_token: str | None = None) -> HttpRequest:
    """The POST to the token endpoint: client credentials (RFC 6749 section 4.4.2) or a token exchange with the
    caller's token as ``subject_token`` (RFC 8693 section 2.1); ``resource`` names the upstream (RFC 8707)."""
    assert auth.client_id is not None
    resource = auth.resource or canonical_resource(upstream_url)
    if auth.mode == "token_exchange":
        if not subject_token:
            raise ValueError("a token exchange needs the caller's token")
        form = {"grant_type": TOKEN_EXCHANGE_GRANT, "subject_token": subject_token, "subject_token_type": ACCESS_TOKEN_TYPE,
                "requested_token_type": ACCESS_TOKEN_TYPE, "resource": resource}
        if auth.audience:
            form["audience"] = auth.audience
    else:
        form = {"grant_type": "client_credentials", "resource": resource}
    if auth.scope:
        form["scope"] = auth.scope
    headers = {**_FORM, **client_auth(endpoint.auth_method, auth.client_id, auth.client_secret, form)}
    return HttpRequest("POST", endpoint.url, headers=headers, form=form, purpose=f"{auth.mode} token request")


@dataclass(frozen=True)
class Token:
    value: str = field(repr=False)
    obtained_at: float
    expires_at: float | None

    @property
    def size(self) -> int:
        return len(self.value)

    def renew_at(self, default_ttl: float) -> float:
        """When to stop using it: a minute before it expires, or half its lifetime for a short one."""
        expires = self.expires_at if self.expires_at is not None else self.obtained_at + default_ttl
        return expires - min(RENEW_EARLY, max(expires - self.obtained_at, 0.0) / 2)


@dataclass(frozen=True)
class TokenRefused:
    error: str
    """The authorization server's ``error`` (RFC 6749 section 5.2), or ``bad_token_response``."""
    detail: str = ""


def token_answer(status: int, body: bytes, now: float, exchange: bool) -> Token | TokenRefused:
    """What a token endpoint's answer gives: a Bearer access token (RFC 6749 section 5.1; for an exchange RFC 8693
    section 2.2.1 also requires ``issued_token_type``), or the refusal (section 5.2)."""
    data = json_object(body)
    if status != 200:
        error = data.get("error") if data is not None else None
        return TokenRefused(error if isinstance(error, str) else f"http_{status}",
                            str((data or {}).get("error_description") or "")[:200])
    if data is None or not isinstance(data.get("access_token"), str) or not data["access_token"]:
        return TokenRefused("bad_token_response", "no access_token")
    if str(data.get("token_type", "")).lower() != "bearer":
        return TokenRefused("bad_token_response", f"token_type {data.get('token_type')!r} is not Bearer")
    if exchange and data.get("issued_token_type") != ACCESS_TOKEN_TYPE:
        return TokenRefused("bad_token_response", f"issued_token_type {data.get('issued_token_type')!r}")
    lifetime = data.get("expires_in")
    expires = now + float(lifetime) if isinstance(lifetime, (int, float)) and lifetime > 0 else None
    return Token(data["access_token"], now, expires)


# ---- the cache ----


@dataclass
class TokenCache:
    """Tokens by key (the subject, or ``BRIDGE_KEY``), least recently used first, bounded by count and bytes.

    At a cap the least recently used entries make room (those past renewal first); a token larger than the byte cap
    is not kept at all (it serves its one request). ``put`` says which keys were dropped, for the shell's log."""

    max_entries: int
    max_bytes: int
    default_ttl: float = 300.0
    entries: OrderedDict[str, Token] = field(default_factory=OrderedDict)
    size: int = 0

    def get(self, key: str, now: float) -> Token | None:
        token = self.entries.get(key)
        if token is None:
            return None
        if now >= token.renew_at(self.default_ttl):
            self.drop(key)
            return None
        self.entries.move_to_end(key)
        return token

    def drop(self, key: str) -> None:
        token = self.entries.pop(key, None)
        if token is not None:
            self.size -= len(key) + token.size

    def put(self, key: str, token: Token, now: float) -> list[str] | None:
        """Keep ``token``; returns the live keys evicted to make room (those past renewal go silently), or None when
        it is not kept (too large)."""
        cost = len(key) + token.size
        self.drop(key)
        if cost > self.max_bytes or self.max_entries < 1:
            return None
        if len(self.entries) >= self.max_entries or self.size + cost > self.max_bytes:  # at a cap: the stale go first
            for stale in [k for k, t in self.entries.items() if now >= t.renew_at(self.default_ttl)]:
                self.drop(stale)
        evicted: list[str] = []
        while self.entries and (len(self.entries) >= self.max_entries or self.size + cost > self.max_bytes):
            oldest = next(iter(self.entries))
            self.drop(oldest)
            evicted.append(oldest)
        self.entries[key] = token
        self.size += cost
        return evicted

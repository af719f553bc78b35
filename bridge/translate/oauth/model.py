"""Data of the sign-in machine: its state (plain JSON-able data), the events it takes, the actions it
returns, and the named errors it fails with. No I/O, no clock, no randomness: the time (``now``) and the
random bytes (``entropy``) arrive as event fields."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

# Named errors: every way a server (or the user) can end a sign-in. The code is stable; the detail is
# for humans. Nothing is stored when a sign-in fails.
ERRORS: dict[str, str] = {
    "bad_config": "the bridge's own OAuth settings are unusable",
    "redirect_not_loopback": "a redirect URI that is not a loopback http URI",
    "forbidden": "403 without an insufficient_scope challenge: more scopes would not help",
    "step_up_exhausted": "the server kept asking for more scope after the bounded number of step-ups",
    "metadata_unavailable": "a metadata server answered with a server error",
    "bad_json": "a server answered with a body that is not a JSON object",
    "bad_metadata": "metadata without a field the spec requires",
    "resource_mismatch": "protected resource metadata for another resource",
    "insecure_endpoint": "an authorization server endpoint that is not HTTPS (nor loopback)",
    "no_as_metadata": "no authorization server metadata at any well-known location",
    "issuer_mismatch": "authorization server metadata whose issuer is not the one it was fetched for",
    "pkce_unsupported": "an authorization server that does not support PKCE S256",
    "no_client_identity": "no pre-registered client, no client ID metadata document support, no registration endpoint",
    "no_client_auth_method": "no token endpoint client authentication method both sides support",
    "registration_failed": "dynamic client registration was refused",
    "state_mismatch": "an authorization response whose state is not the one sent",
    "wrong_iss": "an authorization response from another issuer (RFC 9207)",
    "missing_iss": "an authorization response without iss from a server that promised it (RFC 9207)",
    "authorization_denied": "the authorization server answered the authorization request with an error",
    "bad_redirect": "an authorization response without a code",
    "token_error": "the token endpoint refused the authorization code",
    "bad_token_response": "a token response without a usable access token",
    "unsupported_token_type": "a token type other than Bearer",
    "wrong_resource": "a token issued for another resource",
    "refresh_failed": "the refresh token was refused or is missing",
}


@dataclass
class SignInState:
    """Everything the machine knows, as plain data: ``to_json``/``from_json`` round-trip it exactly."""

    # configuration (the operator's flags and the shell's listener)
    server_url: str
    redirect_uri: str
    client_id: str | None = None
    client_secret: str | None = None
    client_metadata_url: str | None = None
    client_name: str = "mcp-eras bridge"
    scope_override: str | None = None
    max_step_ups: int = 2
    redirect_timeout: float = 300.0
    # The 2025-11-25 and 2026-07-28 security considerations say a client refuses when the metadata
    # omits code_challenge_methods_supported; the conformance harness (auth/pkce-no-s256-support) and
    # many deployed servers treat an absent list as "not advertised". Off by default, on for strictness.
    require_pkce_metadata: bool = False
    # progress
    phase: str = "idle"
    challenge_status: int = 0
    challenge_scope: str | None = None
    prm_candidates: list[str] = field(default_factory=list)
    prm: dict[str, Any] | None = None
    resource: str | None = None
    issuer: str | None = None
    legacy: bool = False
    asm_candidates: list[str] = field(default_factory=list)
    asm: dict[str, Any] | None = None
    client: dict[str, Any] | None = None
    requested_scope: str | None = None
    step_ups: int = 0
    refresh_first: bool = False  # a 401 to a token with a refresh token: try the refresh before the browser
    code_verifier: str | None = None
    state: str | None = None
    tokens: dict[str, Any] | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SignInState:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


# ---- events (what happened) ----


@dataclass(frozen=True)
class Unauthorized:
    """The upstream answered 401 or 403; ``www_authenticate`` is its header value(s). ``entropy``: at least
    48 fresh random bytes (PKCE verifier and state)."""

    status: int
    www_authenticate: list[str] | str | None
    now: float
    entropy: bytes


@dataclass(frozen=True)
class HttpResponse:
    """The answer to the last ``HttpRequest``."""

    status: int
    headers: dict[str, str]
    body: bytes
    now: float


@dataclass(frozen=True)
class Redirected:
    """The query of the request that reached the loopback redirect URI."""

    query: dict[str, str]
    now: float


@dataclass(frozen=True)
class RefreshNow:
    """The shell asks for a refresh (``refresh_due`` said so, or the token was refused)."""

    now: float


@dataclass(frozen=True)
class Succeeded:
    """The retried upstream request went through: the step-up budget starts again."""


Event = Unauthorized | HttpResponse | Redirected | RefreshNow | Succeeded


# ---- actions (what the shell does next) ----


@dataclass(frozen=True)
class HttpRequest:
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    form: dict[str, str] | None = None
    json: dict[str, Any] | None = None
    purpose: str = ""


@dataclass(frozen=True)
class OpenBrowser:
    url: str


@dataclass(frozen=True)
class AwaitRedirect:
    state: str
    deadline: float


@dataclass(frozen=True)
class Store:
    tokens: dict[str, Any]


@dataclass(frozen=True)
class Done:
    access_token: str


@dataclass(frozen=True)
class Fail:
    error: str
    detail: str = ""


Action = HttpRequest | OpenBrowser | AwaitRedirect | Store | Done | Fail


class OAuthError(Exception):
    """A sign-in that ended with a named error (a key of ``ERRORS``)."""

    def __init__(self, error: str, detail: str = "") -> None:
        self.error = error
        self.detail = detail
        super().__init__(f"OAuth sign-in failed: {error}: {detail or ERRORS.get(error, '')}")


def refresh_at(tokens: dict[str, Any] | None, skew: float = 60.0) -> float | None:
    """When to refresh ``tokens`` (a time on the caller's clock), or None when they do not expire. A
    minute early, or half the lifetime early for tokens shorter than two minutes."""
    if not tokens or tokens.get("expires_at") is None:
        return None
    expires = float(tokens["expires_at"])
    lifetime = expires - float(tokens.get("obtained_at") or expires)
    return expires - min(skew, max(lifetime, 0.0) / 2)


def refresh_due(tokens: dict[str, Any] | None, now: float, skew: float = 60.0) -> bool:
    when = refresh_at(tokens, skew)
    return when is not None and now >= when

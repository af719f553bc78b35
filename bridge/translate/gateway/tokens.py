"""Which bearer token the bridge accepts as a resource server, as pure functions of the token's parts, the clock
and the configuration (the signature itself is verified by the shell, ``mcp_eras.bridge.gateway.verify``).

2026-07-28 and 2025-11-25 basic/authorization "Token Handling": a server MUST validate that an access token was
issued for it (its audience, RFC 8707) and MUST NOT accept other tokens. JWT access tokens are checked as
RFC 9068 section 4 and RFC 8725 describe: an allow-list of asymmetric algorithms (never ``none``, never an HMAC
algorithm for an issuer that publishes a JWKS: RFC 8725 sections 2.1 and 3.1), ``iss`` equal to the issuer,
``aud`` naming this resource (a string or a list, RFC 7519 section 4.1.3), ``exp`` and ``nbf`` with a bounded
clock skew. Opaque tokens are checked from an introspection answer (RFC 7662 section 2.2) by the same claims rules.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ASYMMETRIC_ALGS = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"})
"""JWS algorithms (RFC 7518 section 3.1, RFC 8037) a JWKS issuer's public keys can verify."""
MAX_SKEW = 300
"""The largest clock skew (seconds) a configuration may allow."""
DEFAULT_SKEW = 60
DEFAULT_MAX_TOKEN_BYTES = 8192
"""A longer ``Authorization`` value is refused unread (a JWT access token is usually well under 2 KiB)."""

INVALID_REQUEST, INVALID_TOKEN, INSUFFICIENT_SCOPE = "invalid_request", "invalid_token", "insufficient_scope"
"""RFC 6750 section 3.1 error codes."""


@dataclass(frozen=True)
class TokenRules:
    """What this resource server accepts."""

    issuer: str
    audiences: frozenset[str]
    """Accepted ``aud`` values: this resource's identifier (and, in a fleet, the fleet's own)."""
    required_scopes: frozenset[str] = frozenset()
    algorithms: frozenset[str] = ASYMMETRIC_ALGS
    skew: int = DEFAULT_SKEW
    max_token_bytes: int = DEFAULT_MAX_TOKEN_BYTES

    def __post_init__(self) -> None:
        if not 0 <= self.skew <= MAX_SKEW:
            raise ValueError(f"clock skew must be 0..{MAX_SKEW} seconds")
        if "none" in self.algorithms or any(a.startswith("HS") for a in self.algorithms):
            raise ValueError("only asymmetric JWS algorithms may be allowed for a JWKS issuer (RFC 8725 section 3.1)")


@dataclass(frozen=True)
class Refused:
    """A refused request: the HTTP status and the RFC 6750 error for ``WWW-Authenticate``."""

    status: int
    error: str | None
    """None: no token was presented (RFC 6750 section 3.1: then no error code)."""
    description: str


@dataclass(frozen=True)
class Accepted:
    subject: str
    """``iss`` + "|" + ``sub``: the caller's identity across issuers."""
    scopes: frozenset[str]
    expires_at: float | None = None


@dataclass(frozen=True)
class Jws:
    """A compact JWS split and decoded (not verified)."""

    header: dict[str, Any]
    payload: dict[str, Any]
    signing_input: bytes = field(repr=False)
    signature: bytes = field(repr=False)


def _refused(description: str, status: int = 401, error: str | None = INVALID_TOKEN) -> Refused:
    return Refused(status, error, description)


MISSING = _refused("no bearer token", error=None)


def bearer(authorization: str | None, rules: TokenRules) -> str | Refused:
    """The token of an ``Authorization: Bearer`` header (RFC 6750 section 2.1), or why there is none."""
    if authorization is None or not authorization.strip():
        return MISSING
    if len(authorization) > rules.max_token_bytes:
        return _refused("token too large")
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":  # another method: as no credential at all, no error code (RFC 6750 section 3.1)
        return _refused("not a Bearer credential", error=None)
    token = token.strip()
    if not token or " " in token:
        return _refused("malformed bearer token", status=400, error=INVALID_REQUEST)
    return token


def _b64(part: str) -> bytes:
    if not part or "=" in part:
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def split_jws(token: str) -> Jws | None:
    """The token as a compact JWS (RFC 7515 section 7.1), or None when it is not one (an opaque token)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        header, payload = json.loads(_b64(parts[0])), json.loads(_b64(parts[1]))
        signature = _b64(parts[2]) if parts[2] else b""
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None
    if not isinstance(header, dict) or not isinstance(payload, dict):
        return None
    return Jws(header, payload, f"{parts[0]}.{parts[1]}".encode(), signature)


def check_header(header: Mapping[str, Any], rules: TokenRules) -> Refused | None:
    """The JOSE header's checks before any key is looked up (RFC 8725 sections 2.1, 3.1 and 3.11)."""
    alg = header.get("alg")
    if not isinstance(alg, str) or alg not in rules.algorithms:
        return _refused(f"signing algorithm {alg!r} is not accepted")
    if "crit" in header:
        return _refused("unsupported critical header parameters")
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        return _refused("malformed key id")
    typ = header.get("typ")
    if isinstance(typ, str) and typ.lower() not in ("at+jwt", "application/at+jwt", "jwt"):
        return _refused(f"token type {typ!r} is not an access token")  # RFC 9068 section 2.1 / RFC 8725 section 3.11
    return None


def _number(claims: Mapping[str, Any], name: str) -> float | None | Refused:
    value = claims.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return _refused(f"malformed {name} claim")
    return float(value)


def granted_scopes(claims: Mapping[str, Any]) -> frozenset[str]:
    """``scope`` (a space-separated string: RFC 9068 section 2.2.3, RFC 7662 section 2.2) or ``scp`` (a list)."""
    scope = claims.get("scope")
    if isinstance(scope, str):
        return frozenset(scope.split())
    scp = claims.get("scp")
    if isinstance(scp, list) and all(isinstance(s, str) for s in scp):
        return frozenset(scp)
    return frozenset()


def check_claims(claims: Mapping[str, Any], now: float, rules: TokenRules, *, introspected: bool = False) -> Accepted | Refused:
    """The claims of a verified JWT (or of an introspection answer: then ``active`` must be true and a missing
    ``iss`` is the configured issuer's, RFC 7662 section 2.2)."""
    if introspected and claims.get("active") is not True:
        return _refused("token is not active")
    iss = claims.get("iss", rules.issuer if introspected else None)
    if iss != rules.issuer:
        return _refused("token was issued by another issuer")
    aud = claims.get("aud")
    auds = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else None
    if not auds or not any(isinstance(a, str) and a in rules.audiences for a in auds):
        return _refused("token was issued for another resource")
    exp, nbf = _number(claims, "exp"), _number(claims, "nbf")
    for value in (exp, nbf):
        if isinstance(value, Refused):
            return value
    if exp is None:
        return _refused("token has no expiry")
    if now > exp + rules.skew:  # type: ignore[operator]
        return _refused("token expired")
    if nbf is not None and now + rules.skew < nbf:  # type: ignore[operator]
        return _refused("token is not valid yet")
    sub = claims.get("sub")
    if introspected and sub is None:
        sub = claims.get("client_id")  # a client's own token (no resource owner): RFC 9068 section 2.2 names the client
    if not isinstance(sub, str) or not sub:
        return _refused("token names no subject")
    scopes = granted_scopes(claims)
    missing = rules.required_scopes - scopes
    if missing:
        return Refused(403, INSUFFICIENT_SCOPE, "token lacks scope " + " ".join(sorted(missing)))
    return Accepted(f"{iss}|{sub}", scopes, exp)  # type: ignore[arg-type]

"""Signing out at the authorization server: token revocation (RFC 7009), pure.

``auth logout`` forgets a stored sign-in; with revocation the authorization server forgets it too, so a copy
of the refresh token (a backup of the token store, a leaked file) is worthless from then on. The refresh token
goes first: RFC 7009 §2.1 has the server also invalidate the access tokens of the same grant when it revokes a
refresh token (and it may not revoke a JWT access token at all, since a resource server checks those alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .model import HttpRequest
from .wire import client_auth, json_object, secure_endpoint

_FORM_HEADERS = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}


@dataclass(frozen=True)
class Revocation:
    """What to send for one stored sign-in, or why nothing can be sent."""

    requests: tuple[HttpRequest, ...]
    reason: str | None = None  # set when ``requests`` is empty


def revocation_requests(tokens: dict[str, Any]) -> Revocation:
    """The RFC 7009 §2.1 requests that revoke a stored sign-in: the refresh token, then the access token, each
    with its ``token_type_hint`` and the client authentication the token endpoint used (§2.1: the client
    authenticates as it does at the token endpoint)."""
    endpoint = tokens.get("revocation_endpoint")
    if not isinstance(endpoint, str) or not endpoint:
        return Revocation((), "the authorization server offers no revocation endpoint (RFC 8414 revocation_endpoint)")
    if not secure_endpoint(endpoint):
        return Revocation((), f"the revocation endpoint is neither https nor loopback: {endpoint}")
    client = tokens.get("client")
    if not isinstance(client, dict) or not isinstance(client.get("client_id"), str):
        return Revocation((), "the stored sign-in names no client")
    requests = []
    for hint in ("refresh_token", "access_token"):
        value = tokens.get(hint)
        if not isinstance(value, str) or not value:
            continue
        form = {"token": value, "token_type_hint": hint}
        headers = dict(_FORM_HEADERS)
        headers.update(client_auth(str(client.get("auth_method", "none")), client["client_id"],
                                   client.get("client_secret"), form))
        requests.append(HttpRequest("POST", endpoint, headers, form=form, purpose=f"revocation of the {hint}"))
    if not requests:
        return Revocation((), "the stored sign-in holds no token")
    return Revocation(tuple(requests))


def revocation_outcome(status: int, body: bytes) -> str | None:
    """None when the server took the revocation (RFC 7009 §2.2: 200, also for a token it no longer knows), else
    what went wrong: §2.2.1 ``unsupported_token_type`` (the server cannot revoke that kind: not a failure of the
    sign-out), 503 (try again later), or any other error the server named."""
    if status == 200:
        return None
    error = (json_object(body) or {}).get("error")
    if status == 400 and error == "unsupported_token_type":
        return None
    if status == 503:
        return "the authorization server is unavailable (HTTP 503): try the sign-out again later"
    return f"HTTP {status} {error or ''}".strip()

"""Who may reach the fleet's routes: a Host header allow-list on every route (DNS rebinding), and for
the admin endpoints and the ``/fleet`` pages a loopback client, a token and a same-site Origin.

The decisions are pure functions; ``HostGuard`` (ASGI) and ``admin_denied`` (Starlette) apply them.
(The fronts' own Origin rule for MCP endpoints stays in ``bridge.front.http``.)
"""

from __future__ import annotations

import hmac
import json
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
LOOPBACK_CLIENTS = frozenset({"127.0.0.1", "::1", "localhost"})
TOKEN_COOKIE = "mcp_bridge_admin"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")
"""Content types a cross-site HTML form can send without a CORS preflight."""


def host_name(host: str | None) -> str | None:
    """The name part of a Host header (no port; IPv6 without brackets), lower-cased; None if malformed."""
    if not host:
        return None
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        if end < 0 or (host[end + 1:] and not host[end + 1:].startswith(":")):
            return None
        return host[1:end]
    name, _, port = host.partition(":")
    if port and not port.isdigit():
        return None
    return name or None


def host_allowed(host: str | None, allowed: list[str] | tuple[str, ...]) -> bool:
    if "*" in allowed:
        return True
    name = host_name(host)
    if name is None:
        return False
    return name in LOOPBACK_NAMES or name in {a.lower().strip("[]") for a in allowed}


def origin_same_site(origin: str | None, allowed: list[str] | tuple[str, ...] = ()) -> bool:
    """No Origin (a non-browser client) passes; a browser must come from a loopback or allowed origin."""
    if origin is None:
        return True
    if origin in allowed:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and (parts.hostname or "").lower() in LOOPBACK_NAMES


def token_matches(given: str | None, expected: str | None) -> bool:
    return bool(given) and bool(expected) and hmac.compare_digest(str(given).encode(), str(expected).encode())


def bearer(authorization: str | None) -> str | None:
    if authorization and authorization[:7].lower() == "bearer ":
        return authorization[7:].strip() or None
    return None


def admin_verdict(client: str | None, origin: str | None, method: str, content_type: str, token: str | None,
                  expected: str | None, allowed_origins: list[str] | tuple[str, ...] = ()) -> tuple[int, str] | None:
    """Pure: (HTTP status, reason) when an admin request must be refused, else None."""
    if client not in LOOPBACK_CLIENTS:
        return 403, "Forbidden: admin endpoints accept loopback clients only"
    if not origin_same_site(origin, allowed_origins):
        return 403, "Forbidden: cross-site request (Origin not allowed)"
    if method == "POST" and content_type.split(";")[0].strip().lower() in FORM_TYPES:
        return 403, "Forbidden: form posts are not accepted (send JSON with a bearer token)"
    if expected is None:
        return 403, "Forbidden: admin endpoints are disabled (no admin token)"
    if not token_matches(token, expected):
        return 401, "Unauthorized: a valid admin token is required (Authorization: Bearer TOKEN)"
    return None


def admin_denied(request: Request, expected: str | None, allowed_origins: list[str] | tuple[str, ...] = (),
                 cookie_ok: bool = False) -> Response | None:
    """The refusal for an admin request, or None. Pages (``cookie_ok``) also take the token cookie."""
    token = bearer(request.headers.get("authorization"))
    if token is None and cookie_ok:
        token = request.cookies.get(TOKEN_COOKIE)
    verdict = admin_verdict(request.client.host if request.client else None, request.headers.get("origin"), request.method,
                            request.headers.get("content-type", ""), token, expected, allowed_origins)
    if verdict is None:
        return None
    status, reason = verdict
    headers = {"WWW-Authenticate": 'Bearer realm="mcp-bridge-admin"'} if status == 401 else None
    return JSONResponse({"ok": False, "error": reason}, status_code=status, headers=headers)


class HostGuard:
    """ASGI middleware: requests whose Host is not allowed get 421 Misdirected Request on every route."""

    def __init__(self, app: ASGIApp, allowed: Any) -> None:
        self.app = app
        self.allowed = allowed
        """A callable returning the current allow-list (a reload may change it)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = None
            for key, value in scope.get("headers", []):
                if key == b"host":
                    host = value.decode("latin-1")
                    break
            if not host_allowed(host, self.allowed()):
                body = json.dumps({"error": "Misdirected Request: Host not allowed", "host": host}).encode()
                await send({"type": "http.response.start", "status": 421,
                            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)

"""Who may reach the fleet's routes: a Host header allow-list on every route (DNS rebinding), and for
the admin endpoints and the ``/fleet`` pages a loopback client, a token and a same-site Origin.

The Host and Origin rules are the fronts' own (``mcp_eras.bridge.front.middleware``); the admin decision is a
pure function here; ``HostGuard`` (ASGI, with an allow-list a reload may change) and ``admin_denied``
(Starlette) apply them.
"""

from __future__ import annotations

import hmac
from http import HTTPStatus
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_eras.bridge.front.middleware import host_allowed, origin_allowed, refusal

LOOPBACK_CLIENTS = frozenset({"127.0.0.1", "::1", "localhost"})
TOKEN_COOKIE = "mcp_bridge_admin"
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data", "text/plain")
"""Content types a cross-site HTML form can send without a CORS preflight."""


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
        return HTTPStatus.FORBIDDEN, "Forbidden: admin endpoints accept loopback clients only"
    if not origin_allowed(origin, allowed_origins):
        return HTTPStatus.FORBIDDEN, "Forbidden: cross-site request (Origin not allowed)"
    if method == "POST" and content_type.split(";")[0].strip().lower() in FORM_TYPES:
        return HTTPStatus.FORBIDDEN, "Forbidden: form posts are not accepted (send JSON with a bearer token)"
    if expected is None:
        return HTTPStatus.FORBIDDEN, "Forbidden: admin endpoints are disabled (no admin token)"
    if not token_matches(token, expected):
        return HTTPStatus.UNAUTHORIZED, "Unauthorized: a valid admin token is required (Authorization: Bearer TOKEN)"
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
    headers = {"WWW-Authenticate": 'Bearer realm="mcp-bridge-admin"'} if status == HTTPStatus.UNAUTHORIZED else None
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
                await refusal(HTTPStatus.MISDIRECTED_REQUEST, "Misdirected Request: Host not allowed")(scope, receive, send)
                return
        await self.app(scope, receive, send)

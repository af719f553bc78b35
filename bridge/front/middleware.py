"""Transport guards shared by the single-server app (``mcp_eras.bridge.front.http``) and the fleet app: Host
allow-list, Origin, and (on MCP endpoints) content type and declared body size — as one ASGI middleware.

The decisions are pure (``mcp_eras.bridge.translate.transport_guard``); this shell applies them to ASGI requests
and writes the refusal: 2026-07-28 basic/transports/streamable-http.mdx §Security & Endpoint allows its body to
be a JSON-RPC error without ``id``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import get_route_path
from starlette.types import ASGIApp, Receive, Scope, Send

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import INVALID_REQUEST
from mcp_eras.bridge.translate.transport_guard import LOOPBACK_HOSTS, GuardPolicy, host_allowed, is_mcp_path, origin_allowed, screen

SCREENED = "mcp_bridge_screened"
"""Set in the ASGI scope's state once a request passed the guard (the endpoint does not re-check)."""


def refusal(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """A JSON-RPC error without ``id`` (the request was not read), as the transport section allows."""
    return Response(jsonrpc.dumps(jsonrpc.error_response(None, INVALID_REQUEST, message)), status_code=status,
                    media_type="application/json", headers=headers)


Endpoint = Callable[[Request], Awaitable[Response]]
ENDPOINT_METHODS = frozenset({"GET", "POST", "DELETE", "PUT", "PATCH"})
"""Methods a direct endpoint serves; others (HEAD, OPTIONS) go through the app's router (405 there)."""


class IndexedHeaders(Headers):
    """Starlette's request ``Headers`` with lookups from a dict built once (the first value of a repeated
    field wins, as in ``Headers``); ``getlist``, ``raw`` and iteration are Starlette's own."""

    def __init__(self, scope: Scope, index: dict[str, str] | None = None) -> None:
        """``index``: the lookup dict when the caller already built it from the same header list."""
        super().__init__(scope=scope)
        self._index = index if index is not None else {k.decode("latin-1"): v.decode("latin-1") for k, v in reversed(self._list)}

    def __getitem__(self, key: str) -> str:
        try:
            return self._index[key.lower()]
        except KeyError:
            raise KeyError(key) from None

    def __contains__(self, key: Any) -> bool:
        return isinstance(key, str) and key.lower() in self._index

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self._index.get(key.lower(), default)


class TransportGuard:
    """Pure ASGI middleware (no body buffering: streaming responses pass straight through).

    ``endpoints`` (path -> endpoint) are served straight from here once screened: the hot MCP endpoint
    skips the app's exception middleware, router and route wrapper (per-request layers that did nothing
    for it: it raises no HTTPException and its path is fixed). Errors still reach Starlette's outermost
    ServerErrorMiddleware (a 500), which wraps this guard."""

    def __init__(self, app: ASGIApp, policy: GuardPolicy, endpoints: Mapping[str, Endpoint] | None = None) -> None:
        self.app = app
        self.policy = policy
        self.endpoints = dict(endpoints or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = IndexedHeaders(scope=scope)
            stop = screen(scope["method"], scope["path"], headers, self.policy)
            if stop is not None:
                await refusal(*stop)(scope, receive, send)
                return
            scope.setdefault("state", {})[SCREENED] = True
            endpoint = self.endpoints.get(get_route_path(scope)) if self.endpoints else None
            if endpoint is not None and scope["method"] in ENDPOINT_METHODS:
                request = Request(scope, receive, send)
                request._headers = headers  # read once per request (Starlette's Headers scans the list per lookup)
                response = await endpoint(request)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def guard_middleware(settings: Settings, mcp_path: Callable[[str], bool] = is_mcp_path,
                     endpoints: Mapping[str, Endpoint] | None = None) -> Middleware:
    """``Starlette(middleware=[guard_middleware(settings)])`` for any app serving MCP endpoints."""
    return Middleware(TransportGuard, policy=GuardPolicy.from_settings(settings, mcp_path), endpoints=endpoints)


def screen_request(request: Request, settings: Settings) -> Response | None:
    """For endpoints mounted in an app without the middleware: the same checks, once."""
    if request.scope.get("state", {}).get(SCREENED):
        return None
    stop = screen(request.method, request.url.path, request.headers, GuardPolicy.from_settings(settings))
    return refusal(*stop) if stop is not None else None


__all__ = ["GuardPolicy", "LOOPBACK_HOSTS", "TransportGuard", "guard_middleware", "host_allowed", "origin_allowed",
           "refusal", "screen", "screen_request"]

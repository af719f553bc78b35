"""HTTP shell of the Server Card (``mcp_eras.bridge.translate.server_card`` decides the documents): ``GET
<endpoint>/server-card`` for each bridged endpoint and ``GET /.well-known/ai-catalog.json`` listing them, with the
extension's media types, CORS and caching headers and ``If-None-Match`` revalidation (304)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream, UpstreamError
from mcp_eras.bridge.translate import server_card as sc

log = logging.getLogger("mcp_bridge.server_card")


class Fronted(Protocol):
    """What a card needs of a front (``HttpFront``): its settings, upstream and whether its 2025 front is on."""

    settings: Settings
    upstream: Upstream
    legacy: Any


Endpoints = Callable[[], list[tuple[str, str, Fronted]]]
"""The bridged endpoints now: (name, endpoint path, front) each (one for ``serve``, one per server in a fleet)."""


def endpoint_url(request: Request, path: str) -> str:
    """The endpoint's absolute URL as this request reached the bridge (scheme and host of the request)."""
    base = str(request.base_url).rstrip("/")
    return base + path


async def card_of(front: Fronted, url: str, name: str) -> dict[str, Any]:
    """The card of one endpoint, from its upstream's ``server/discover`` as any caller would see it."""
    discover = await front.upstream.discover(CallContext())
    versions = sc.served_versions(front.settings.front_era, front.legacy is not None)
    return sc.server_card(discover, url, versions, name)


def document_response(request: Request, document: dict[str, Any], media_type: str) -> Response:
    body, etag = sc.body_and_etag(document)
    headers = {**sc.CORS_HEADERS, "Cache-Control": sc.CACHE_CONTROL, "ETag": etag}
    if sc.not_modified(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def unavailable(exc: Exception) -> Response:
    log.info("server card: upstream not reachable: %s", exc)
    return JSONResponse({"error": "upstream not reachable"}, status_code=503, headers={"Retry-After": "5", **sc.CORS_HEADERS})


def card_route(endpoints: Endpoints, name_param: str | None = None) -> Callable[[Request], Awaitable[Response]]:
    """The handler of ``<endpoint>/server-card`` (``name_param``: the path parameter naming a fleet's server)."""

    async def handler(request: Request) -> Response:
        wanted = request.path_params.get(name_param) if name_param else None
        for name, path, front in endpoints():
            if wanted is None or name == wanted:
                try:
                    card = await card_of(front, endpoint_url(request, path), name)
                except UpstreamError as exc:
                    return unavailable(exc)
                return document_response(request, card, sc.CARD_MEDIA_TYPE)
        return JSONResponse({"error": "no such server"}, status_code=404)

    return handler


def catalog_route(endpoints: Endpoints) -> Callable[[Request], Awaitable[Response]]:
    """The handler of ``/.well-known/ai-catalog.json``: one entry per bridged endpoint, pointing at its card."""

    async def handler(request: Request) -> Response:
        entries = []
        for name, path, front in endpoints():
            url = endpoint_url(request, path)
            try:
                card = await card_of(front, url, name)
            except UpstreamError as exc:
                return unavailable(exc)
            entries.append(sc.catalog_entry(card, sc.card_url(url)))
        return document_response(request, sc.catalog(entries), sc.CATALOG_MEDIA_TYPE)

    return handler


def single_routes(path: str, front: Fronted, name: str = "upstream") -> list[Route]:
    """``serve``'s two routes: its endpoint's card and the catalog of it."""
    def endpoints() -> list[tuple[str, str, Fronted]]:
        return [(name, path, front)]

    return [Route(path.rstrip("/") + sc.CARD_SUFFIX, card_route(endpoints), methods=["GET"]),
            Route(sc.CATALOG_PATH, catalog_route(endpoints), methods=["GET"])]


class FleetEntries(Protocol):
    entries: Any


def fleet_routes(router: FleetEntries) -> list[Route]:
    """A fleet's routes: each server's card at ``/servers/{name}/mcp/server-card`` and one catalog of all of them."""

    def endpoints() -> list[tuple[str, str, Fronted]]:
        return [(name, f"/servers/{name}/mcp", entry.front) for name, entry in sorted(router.entries.items())]

    return [Route("/servers/{name}/mcp" + sc.CARD_SUFFIX, card_route(endpoints, "name"), methods=["GET"]),
            Route(sc.CATALOG_PATH, catalog_route(endpoints), methods=["GET"])]

"""The shared transport guard on an app shaped like the fleet's (several MCP endpoints, admin and health
routes): every route refuses a foreign Host (421) and a cross-site Origin (403) before its handler runs."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.middleware import guard_middleware

import spec

REACHED: list[str] = []


async def handler(request: Request) -> PlainTextResponse:
    REACHED.append(request.url.path)
    return PlainTextResponse("ok")


def app(**settings: object) -> TestClient:
    routes = [Route(p, handler, methods=["GET", "POST"]) for p in ("/servers/{name}/mcp", "/admin/reload", "/healthz")]
    return TestClient(Starlette(routes=routes, middleware=[guard_middleware(Settings(**settings))]), base_url="http://localhost")


@pytest.mark.parametrize("path", ["/servers/a/mcp", "/admin/reload", "/healthz"])
def test_every_route_refuses_foreign_host_and_cross_site_origin(path: str) -> None:
    REACHED.clear()
    client = app()
    for headers, status in (({"Host": "evil.example"}, 421), ({"Origin": "https://evil.example"}, 403)):
        response = client.post(path, headers={**headers, "Content-Type": "application/x-www-form-urlencoded"}, content=b"a=1")
        assert response.status_code == status
        spec.modern("JSONRPCErrorResponse", response.json())
        spec.legacy("JSONRPCErrorResponse", response.json())
    assert REACHED == []
    assert client.get(path).status_code == 200


def test_content_rules_apply_to_mcp_endpoints_only() -> None:
    client = app(max_body_bytes=4)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert client.post("/servers/a/mcp", headers=form, content=b"a=1").status_code == 415
    assert client.post("/servers/a/mcp", headers={"Content-Type": "application/json"}, content=b"[1, 2, 3]").status_code == 413
    assert client.post("/admin/reload", headers=form, content=b"a=1").status_code == 200

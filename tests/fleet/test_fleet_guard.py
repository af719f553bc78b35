"""Issue 10 item 5 and issue 16's "closed by default", in process: a Host header outside the allow-list
gets 421 on every route; /admin/* and /fleet* need a loopback client, the admin token and a same-site
Origin (a cross-site form POST to /admin/reload is refused with 403); the generated token file is 0600."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcp_eras.bridge.fleet.serve import Router, build_fleet_app

TOKEN = "guard-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
CONFIG = """
[bridge]
admin_token = "%s"

[servers.old]
command = "true"
era = "2025-11-25"
canary = { to = "new", weight = 0.25 }

[servers.new]
command = "true"
era = "2026-07-28"
"""
ROUTES = [("GET", "/healthz"), ("GET", "/metrics"), ("GET", "/servers/old/healthz"), ("POST", "/servers/old/mcp"),
          ("GET", "/servers/old/mcp"), ("GET", "/fleet"), ("GET", "/fleet/status"), ("GET", "/fleet/divergences"),
          ("POST", "/admin/reload"), ("POST", "/admin/canary"), ("GET", "/nope")]

Client = Callable[..., Awaitable[httpx.Response]]


async def with_fleet(tmp: Path, body: Callable[[Router, Any], Awaitable[None]], token: str | None = TOKEN,
                     client_addr: tuple[str, int] = ("127.0.0.1", 50000)) -> None:
    path = tmp / "fleet.toml"
    path.write_text(CONFIG % token if token else CONFIG.replace('admin_token = "%s"', ""))
    router = Router(path)
    app = build_fleet_app(router)
    await router.load()
    try:
        transport = httpx.ASGITransport(app=app, client=client_addr)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8808") as client:
            await body(router, client)
    finally:
        await router.aclose()


def run(tmp: Path, body: Callable[[Router, Any], Awaitable[None]], **kw: Any) -> None:
    asyncio.run(with_fleet(tmp, body, **kw))


@pytest.fixture(autouse=True)
def _no_env_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_BRIDGE_ADMIN_TOKEN", raising=False)


def test_foreign_host_gets_421_on_every_route(tmp_path: Path) -> None:
    async def body(router: Router, client: httpx.AsyncClient) -> None:
        for method, path in ROUTES:
            resp = await client.request(method, path, headers={"Host": "evil.example", **AUTH}, json={})
            assert resp.status_code == 421, (method, path, resp.status_code)
            assert "pids" not in resp.text and "command" not in resp.text
        for host in ("127.0.0.1:8808", "localhost:8808", "[::1]:8808"):
            # let through: the answer is the server's health (``true`` exits at once: down, 503 with its reason)
            resp = await client.get("/servers/old/healthz", headers={"Host": host})
            assert resp.status_code in (200, 503) and "state" in resp.json(), resp.text

    run(tmp_path, body)


def test_allow_host_extends_the_list(tmp_path: Path) -> None:
    async def body(router: Router, client: httpx.AsyncClient) -> None:
        assert (await client.get("/healthz", headers={"Host": "bridge.internal:8808"})).status_code == 421
        assert router.config is not None
        router.config.bridge.allow_host.append("bridge.internal")
        assert (await client.get("/healthz", headers={"Host": "bridge.internal:8808"})).status_code == 200

    run(tmp_path, body)


def test_admin_reload_is_closed_to_cross_site_and_tokenless_requests(tmp_path: Path) -> None:
    async def body(router: Router, client: httpx.AsyncClient) -> None:
        form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": "https://evil.example"}
        # a cross-site HTML form POST (with or without the token a browser could never add)
        assert (await client.post("/admin/reload", content=b"a=1", headers=form)).status_code == 403
        assert (await client.post("/admin/reload", content=b"a=1", headers={**form, **AUTH})).status_code == 403
        assert (await client.post("/admin/reload", content=b"a=1", headers={**AUTH, "Content-Type": "text/plain"})).status_code == 403
        assert (await client.post("/admin/reload", headers={**AUTH, "Origin": "https://evil.example"})).status_code == 403
        resp = await client.post("/admin/reload")
        assert resp.status_code == 401 and resp.headers["www-authenticate"].startswith("Bearer")
        assert (await client.post("/admin/reload", headers={"Authorization": "Bearer wrong"})).status_code == 401
        resp = await client.post("/admin/reload", headers={**AUTH, "Origin": "http://127.0.0.1:8808"})
        assert resp.status_code == 200 and resp.json()["ok"] is True

    run(tmp_path, body)


def test_admin_and_pages_refuse_remote_clients_even_with_the_token(tmp_path: Path) -> None:
    async def body(router: Router, client: httpx.AsyncClient) -> None:
        for method, path in [("POST", "/admin/reload"), ("POST", "/admin/canary"), ("GET", "/fleet"), ("GET", "/fleet/status"),
                             ("GET", "/fleet/divergences")]:
            assert (await client.request(method, path, headers=AUTH)).status_code == 403, path
        assert (await client.get(f"/fleet?token={TOKEN}")).status_code == 403

    run(tmp_path, body, client_addr=("10.1.2.3", 50000))


def test_pages_take_the_token_once_and_keep_it_in_a_strict_cookie(tmp_path: Path) -> None:
    async def body(router: Router, client: httpx.AsyncClient) -> None:
        assert (await client.get("/fleet")).status_code == 401
        assert (await client.get("/fleet?token=wrong")).status_code == 401
        resp = await client.get(f"/fleet?token={TOKEN}")
        assert resp.status_code == 303 and resp.headers["location"] == "/fleet"
        cookie = resp.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        page = await client.get("/fleet")  # the client kept the cookie
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "default-src 'none'" in page.headers["content-security-policy"]
        assert (await client.get("/fleet/status")).json()["servers"][0]["name"] == "new"
        # the cookie is for pages: admin POSTs still need the Authorization header
        assert (await client.post("/admin/reload")).status_code == 401

    run(tmp_path, body)


def test_canary_weight_through_the_admin_endpoint(tmp_path: Path) -> None:
    async def body(router: Router, client: httpx.AsyncClient) -> None:
        stage = router.entries["old"].staged.stage
        assert stage is not None and stage.weight == 0.25
        stage.rolled_back = "error rate 50%"
        stage.weight = 0.0
        resp = await client.post("/admin/canary", json={"server": "old", "weight": 0.5}, headers=AUTH)
        assert resp.status_code == 200, resp.text
        assert resp.json()["canary"]["weight"] == 0.5 and resp.json()["canary"]["state"] == "active"
        assert stage.rolled_back is None
        for bad in ({"server": "old", "weight": 2}, {"server": "old", "weight": "x"}, {"server": "old"}):
            assert (await client.post("/admin/canary", json=bad, headers=AUTH)).status_code == 400
        assert (await client.post("/admin/canary", json={"server": "new", "weight": 0.1}, headers=AUTH)).status_code == 404
        assert (await client.post("/admin/canary", json={"server": "old", "weight": 0.1})).status_code == 401
        metrics = (await client.get("/metrics")).text
        assert 'mcp_bridge_canary_weight{server="old",canary="new"} 0.5' in metrics

    run(tmp_path, body)


def test_generated_token_file_is_private(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def body(router: Router, client: httpx.AsyncClient) -> None:
        path = tmp_path / "fleet.toml.admin-token"
        seen["mode"] = stat.S_IMODE(path.stat().st_mode)
        token = path.read_text().strip()
        seen["ok"] = (await client.post("/admin/reload", headers={"Authorization": f"Bearer {token}"})).status_code
        seen["same"] = router.admin_token == token

    run(tmp_path, body, token=None)
    assert seen == {"mode": 0o600, "ok": 200, "same": True}


def test_cli_side_finds_the_token_and_reports_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_eras.bridge.fleet import admin

    config = tmp_path / "fleet.toml"
    config.write_text('[bridge]\nlisten = "127.0.0.1:9"\n[servers.a]\ncommand = "true"\n')
    assert admin.client_token(str(config)) is None
    admin.write_token(tmp_path / "fleet.toml.admin-token", "from-file")
    assert admin.client_token(str(config)) == "from-file"
    assert admin.client_token(str(config), "explicit") == "explicit"
    monkeypatch.setenv("MCP_BRIDGE_ADMIN_TOKEN", "from-env")
    assert admin.client_token(str(config)) == "from-env" and admin.reload_headers(None) == {"Authorization": "Bearer from-env"}
    assert admin.base_url(None, str(config)) == "http://127.0.0.1:9" and admin.base_url("http://h:1/", None) == "http://h:1"
    assert admin.canary_command("a", 1.5, None, str(config), None)[0] == 2
    code, text = admin.canary_command("a", 0.5, "http://127.0.0.1:9", None, None)  # nothing listens on port 9
    assert code == 1 and "cannot reach" in text

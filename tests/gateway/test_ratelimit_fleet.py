"""Rate limits in fleet mode: ``rate``/``burst`` per server in the config (checked, applied in place on a reload) and
an in-process fleet where one server is limited per caller and another is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from mcp_eras.bridge.fleet import config as fc
from mcp_eras.bridge.fleet.metrics import parse_text
from mcp_eras.bridge.fleet.serve import Router, build_fleet_app
from mcp_eras.bridge.translate.gateway.ratelimit import RateLimit

import peers

pytestmark = pytest.mark.anyio

SERVER = f"""command = {str(peers.MODERN_PYTHON)!r}
args = [{str(peers.SAMPLES / "modern" / "everything_server.py")!r}, "stdio", "--modern-only"]
era = "2026-07-28"
"""


def _config(limited: str) -> str:
    return f"[servers.limited]\n{SERVER}{limited}\n[servers.free]\n{SERVER}"


def test_rate_and_burst_are_checked_per_server() -> None:
    cfg = fc.parse(_config('rate = "2/min"\nburst = 3\n'))
    assert cfg.servers["limited"].rate_limit() == RateLimit(2 / 60, 3.0, "2/min")
    assert cfg.servers["free"].rate_limit() is None
    with pytest.raises(fc.ConfigError, match="rate is N/s, N/min or N/h"):
        fc.parse(_config('rate = "2/day"\n'))
    with pytest.raises(fc.ConfigError, match="burst needs a rate"):
        fc.parse(_config("burst = 3\n"))
    with pytest.raises(fc.ConfigError, match="burst"):
        fc.parse(_config('rate = "1/s"\nburst = 0\n'))


def test_a_changed_limit_does_not_replace_the_server() -> None:
    one, other = fc.parse(_config('rate = "1/s"\n')), fc.parse(_config('rate = "5/s"\nburst = 9\n'))
    assert fc.fingerprint(one.bridge, one.servers["limited"]) == fc.fingerprint(other.bridge, other.servers["limited"])


def _list(rid: int) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": {"_meta": meta}}


HEADERS = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}


async def test_one_server_limits_each_caller_and_a_reload_lifts_it(tmp_path: Path) -> None:
    path = tmp_path / "fleet.toml"
    path.write_text(_config('rate = "1/h"\nburst = 2\n'))
    router = Router(path)
    app = build_fleet_app(router)
    await router.load()
    try:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8808", timeout=60) as client:
            async def post(server: str, caller: str, rid: int) -> httpx.Response:
                return await client.post(f"/servers/{server}/mcp", json=_list(rid),
                                         headers={**HEADERS, "authorization": f"Bearer {caller}"})

            first = [(await post("limited", "alice", i)).status_code for i in range(3)]
            assert first == [200, 200, 429]
            refused = await post("limited", "alice", 9)
            assert refused.status_code == 429 and refused.headers["retry-after"].isdigit()
            assert refused.json()["error"]["data"]["limit"] == "rate"
            assert (await post("limited", "bob", 10)).status_code == 200
            assert [(await post("free", "alice", 20 + i)).status_code for i in range(4)] == [200] * 4
            samples = parse_text((await client.get("/metrics")).text)["mcp_bridge_rate_limited_total"]
            assert [(labels["server"], value) for labels, value in samples if labels["reason"] == "rate"] == [("limited", 2.0)]
            path.write_text(_config(""))
            changes = await router.reload()
            assert changes["ok"] and "limited" in changes["unchanged"]
            assert (await post("limited", "alice", 30)).status_code == 200
    finally:
        await router.aclose()


async def test_2025_clients_of_a_limited_2025_http_server_do_not_pass_around_the_limit(tmp_path: Path) -> None:
    port = peers.free_port()
    cmd = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "everything_server.py"), "http", "--port", str(port)]
    path = tmp_path / "fleet.toml"
    path.write_text(f'[servers.old]\nurl = "http://127.0.0.1:{port}/mcp"\nera = "2025-11-25"\nrate = "1/h"\nburst = 2\n')
    with peers.running(cmd, port):
        router = Router(path)
        app = build_fleet_app(router)
        await router.load()
        try:
            transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8808", timeout=60) as client:
                headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
                init = await client.post("/servers/old/mcp", headers=headers, json={
                    "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
                assert init.status_code == 200
                headers["mcp-session-id"] = init.headers["mcp-session-id"]
                await client.post("/servers/old/mcp", headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
                answers = []
                for rid in range(1, 4):
                    resp = await client.post("/servers/old/mcp", headers=headers,
                                             json={"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": {}})
                    assert resp.status_code == 200
                    answers.append(_answer(resp, rid))
                assert ["result" in a for a in answers] == [True, True, False]
                assert answers[2]["error"]["data"]["limit"] == "rate"
        finally:
            await router.aclose()


def _answer(resp: httpx.Response, rid: int) -> dict[str, Any]:
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        for line in resp.text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                msg = json.loads(line[5:])
                if msg.get("id") == rid:
                    return msg  # type: ignore[no-any-return]
        raise AssertionError(resp.text)
    return resp.json()  # type: ignore[no-any-return]

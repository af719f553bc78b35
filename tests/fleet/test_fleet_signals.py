"""Issue #33 item 7, operator signals of the fleet: the health answers say what their status says (a server that is
down: 503 with the reason; ``?strict=1``: 503 with ``"status": "degraded"``), readiness follows the shared store,
a misspelt key of a server entry stops the config in both formats (naming the key it misspells), ``probe -- CMD
ARGS`` probes one command line, and a URL that is not an MCP endpoint is reported with what it answered."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import fleet_peers as fp
import httpx
import pytest

from mcp_eras.bridge.fleet import config as fc
from mcp_eras.bridge.fleet import probe
from mcp_eras.bridge.translate import outcomes as oc

# --- pure answers ----------------------------------------------------------------------------------


def test_strict_health_never_says_ok_beside_a_503() -> None:
    body = {"status": "ok", "servers": {"a": {"state": "ok"}, "b": {"state": "down"}}}
    assert oc.fleet_health_status(body, strict=True) == 503
    assert body["status"] == "degraded" and body["down"] == ["b"]
    relaxed = {"status": "ok", "servers": {"a": {"state": "ok"}, "b": {"state": "down"}}}
    assert oc.fleet_health_status(relaxed, strict=False) == 200 and relaxed["status"] == "degraded"
    fine = {"status": "ok", "servers": {"a": {"state": "ok"}}}
    assert oc.fleet_health_status(fine, strict=True) == 200 and fine["status"] == "ok"


def test_a_store_that_does_not_answer_degrades_health_and_readiness() -> None:
    body = {"servers": {"a": {"state": "ok", "cluster": {"store": "redis", "store_ok": False}}, "b": {"state": "ok"}}}
    assert oc.fleet_health_status(body, strict=False) == 200
    assert body["status"] == "degraded" and body["store_down"] == ["a"] and body["down"] == []
    assert oc.fleet_health_status(body, strict=True) == 503
    assert oc.fleet_readiness(True, [], ["a"]) == ("not ready: shared store unreachable for a\n", 503)
    assert oc.fleet_readiness(True, [], []) == ("ready\n", 200)


@pytest.mark.parametrize(("status", "code", "reason"), [
    ({"state": "ok"}, 200, None),
    ({"state": "degraded", "last_error": "one call failed"}, 200, None),
    ({"state": "down", "last_error": "no such file"}, 503, "down: no such file"),
    ({"state": "not started", "last_error": None}, 503, "not started: no upstream yet"),
    ({"state": "ok", "cluster": {"store": "redis", "store_ok": False}}, 503, "shared store redis unreachable"),
])
def test_a_servers_health_status_matches_its_state(status: dict, code: int, reason: str | None) -> None:
    body, got = oc.server_health(status)
    assert got == code and body.get("reason") == reason


@pytest.mark.parametrize(("text", "fmt", "expected"), [
    ('{"mcpServers": {\n  "a": {"command": "x",\n    "enviroment": {"K": "v"}}}}', "json",
     "f.json:3: mcpServers.a.enviroment: unknown key (did you mean 'env'?)"),
    ('{"mcpServers": {\n  "a": {"command": "x",\n    "evn": {"K": "v"}}}}', "json", "mcpServers.a.evn: unknown key (did you mean 'env'?)"),
    ('{"servers": {"a": {"command": "x", "arguments": []}}}', "json", "unknown key (did you mean 'args'?)"),
    ('[servers.a]\ncommand = "x"\nevn = { K = "v" }\n', "toml", "f.toml:3: servers.a.evn: unknown key (did you mean 'env'?)"),
    ('[servers.a]\ncommand = "x"\nenviroment = { K = "v" }\n', "toml", "servers.a.enviroment: unknown key (did you mean 'env'?)"),
    ('{"mcpServers": {"a": {"command": "x", "zzqx": 1}}}', "json", "mcpServers.a.zzqx: unknown key"),
])
def test_a_misspelt_server_key_is_an_error_in_both_formats(text: str, fmt: str, expected: str) -> None:
    with pytest.raises(fc.ConfigError) as info:
        fc.parse(text, f"f.{fmt}", fmt)  # type: ignore[arg-type]
    assert expected in str(info.value)


def test_known_desktop_keys_stay_warnings() -> None:
    cfg = fc.parse('{"mcpServers": {"a": {"command": "x", "env": {"K": "v"}, "autoApprove": [], "envFile": ".env",'
                   ' "trust": true}}}', "f.json", "json")
    assert cfg.servers["a"].env == {"K": "v"}


@pytest.mark.parametrize(("url", "status", "location", "expected"), [
    ("http://h:1/", 404, None, "http://h:1/ answered HTTP 404 Not Found (no MCP endpoint at the root: the endpoint usually has a path, "
                               "e.g. http://h:1/mcp)"),
    ("http://h:1/mcp/", 404, None, "try it without the trailing slash, http://h:1/mcp"),
    ("http://h:1/mcp/", 307, "http://h:1/mcp", "answered HTTP 307 Temporary Redirect (it redirects to http://h:1/mcp"),
    ("http://h:1/x", 404, None, "no MCP endpoint at this path"),
    ("http://h:1/mcp", 401, None, None),
    ("http://h:1/mcp", 200, None, None),
])
def test_a_refused_probe_names_the_http_status(url: str, status: int, location: str | None, expected: str | None) -> None:
    got = probe.http_refusal(url, status, location)
    assert got == expected if expected is None else expected in (got or "")


# --- real processes ----------------------------------------------------------------------------------


@pytest.mark.legacy_peer
def test_probe_takes_the_command_after_dashes_as_one() -> None:
    """``probe -- CMD ARGS``: one command line (before: one target per word, and ``python`` alone waited on stdin)."""
    proc = fp.run_cli("probe", "--json", "-q", "--timeout", "60", "--", *fp.legacy_cmd("stdio"), timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert [s["era"] for s in report["servers"]] == [fp.LEGACY]
    assert report["servers"][0]["serverInfo"]["name"] == "legacy-everything"


@pytest.mark.legacy_peer
def test_probe_of_a_wrong_path_reports_what_the_server_answered() -> None:
    port = fp.peers.free_port()
    with fp.peers.running(fp.legacy_cmd("http", "--port", str(port)), port):
        base = f"http://127.0.0.1:{port}"
        proc = fp.run_cli("probe", "-q", f"{base}/", f"{base}/mcp/", timeout=240)
    assert proc.returncode == 1
    out = " ".join(proc.stdout.split())
    assert f"{base}/ answered HTTP 404 Not Found" in out, out
    assert f"{base}/mcp/ answered HTTP 307" in out, out
    assert "session expired" not in out and "closed the response stream" not in out


@pytest.mark.legacy_peer
def test_a_down_server_is_503_and_strict_health_says_degraded(tmp_path: Path) -> None:
    servers = {"good": {"command": fp.peers.legacy_python(), "args": [str(fp.LEGACY_SERVER), "stdio"]},
               "broken": {"command": str(tmp_path / "no-such-server")}}
    with fp.fleet_bridge(tmp_path, servers) as bridge:
        fp.wait_for(lambda: httpx.get(f"{bridge.base}/readyz", timeout=30).status_code == 200, "readiness")
        fp.wait_for(lambda: bridge.health()["servers"]["good"]["state"] == "ok", "the good server")
        broken = httpx.get(f"{bridge.base}/servers/broken/healthz", timeout=30)
        assert broken.status_code == 503 and broken.json()["reason"].startswith("down: "), broken.text
        assert httpx.get(f"{bridge.base}/servers/good/healthz", timeout=30).status_code == 200
        strict = httpx.get(f"{bridge.base}/healthz?strict=1", timeout=30)
        assert strict.status_code == 503 and strict.json()["status"] == "degraded" and strict.json()["down"] == ["broken"]
        relaxed = httpx.get(f"{bridge.base}/healthz", timeout=30)
        assert relaxed.status_code == 200 and relaxed.json()["status"] == "degraded"


@pytest.mark.legacy_peer
def test_readiness_follows_the_shared_store(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scale"))
    import scale_peers

    servers = {"good": {"command": fp.peers.legacy_python(), "args": [str(fp.LEGACY_SERVER), "stdio"]}}
    with scale_peers.redis_process() as (store, redis):
        bridge_cfg = {"state_store": store, "state_key": scale_peers.STATE_KEY}
        with fp.fleet_bridge(tmp_path, servers, bridge_cfg) as bridge:
            fp.wait_for(lambda: httpx.get(f"{bridge.base}/readyz", timeout=30).status_code == 200, "readiness with the store up")
            redis.terminate()
            redis.wait(30)
            ready = fp.wait_for(lambda: (r := httpx.get(f"{bridge.base}/readyz", timeout=30)).status_code == 503 and r,
                                "readiness to follow the store")
            assert "shared store unreachable for good" in ready.text
            health = httpx.get(f"{bridge.base}/healthz", timeout=30)
            assert health.status_code == 200  # liveness: the process answers
            assert health.json()["store_down"] == ["good"] and health.json()["status"] == "degraded"
            server = httpx.get(f"{bridge.base}/servers/good/healthz", timeout=30)
            assert server.status_code == 503 and "unreachable" in server.json()["reason"]



def test_a_single_instance_reports_its_store() -> None:
    body, code = oc.health_body(True, "", "stdio: x", {})
    assert code == 200 and oc.with_store(body, "redis", False)["status"] == "degraded"
    assert body["store"] == {"name": "redis", "ok": False}
    down, _ = oc.health_body(False, "no answer", "stdio: x", {})
    assert oc.with_store(down, "redis", False)["status"] == "down"  # the worse state stays
    assert oc.ready_with_store(True, "", "redis", False) == (False, "shared store redis unreachable")
    assert oc.ready_with_store(False, "no answer", "redis", False) == (False, "no answer")
    assert oc.ready_with_store(True, "", "redis", True) == (True, "")

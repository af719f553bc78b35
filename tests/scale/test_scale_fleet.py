"""#11 fleet mode scaled out, real parts: two ``mcp-bridge serve --config`` instances share a redis-server
through ``[bridge] state_store``/``state_key``. A 2026 client's MRTR retry whose requestState names the
other instance is forwarded to it (under ``/servers/<name>/internal/forward``) and the flow completes; a
token of one fleet server is not forwarded to another server's instance; a 2025 session of a 2026 server
opened on one instance is served through the other; a shared store without a key is refused at start in one
line (exit status 2)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import scale_peers
from scale_peers import modern_tool_call

import peers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from direction_b_peers import MODERN_SERVER  # noqa: E402

pytestmark = [pytest.mark.legacy_peer]

NAME = {"action": "accept", "content": {"name": "Ada"}}
COLOR = {"action": "accept", "content": {"color": "teal"}}


def fleet_config(path: Path, upstream_url: str, store: str, key: str | None = scale_peers.STATE_KEY,
                 modern_url: str | None = None) -> Path:
    key_line = f'state_key = "{key}"\n' if key else ""
    servers = "".join(f'[servers.{name}]\nurl = "{upstream_url}"\nera = "2025-11-25"\n\n' for name in ("mrtr", "other"))
    if modern_url:
        servers += f'[servers.modern]\nurl = "{modern_url}"\nera = "2026-07-28"\n'
    path.write_text(f'[bridge]\nstate_store = "{store}"\n{key_line}instance_id = "from-config"\n\n' + servers)
    return path


def url(inst: scale_peers.Instance, server: str = "mrtr") -> str:
    return f"http://127.0.0.1:{inst.port}/servers/{server}/mcp"


def health(inst: scale_peers.Instance) -> dict:
    return httpx.get(f"http://127.0.0.1:{inst.port}/healthz", timeout=10).json()


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[tuple[scale_peers.Instance, scale_peers.Instance]]:
    port, modern_port = peers.free_port(), peers.free_port()
    server = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "mrtr_server.py"), "http", "--port", str(port)]
    script = tmp_path / "modern_server.py"
    script.write_text(MODERN_SERVER)
    with peers.running(server, port), peers.running([peers.MODERN_PYTHON, str(script), "http", str(modern_port)], modern_port), \
            scale_peers.redis_server() as store:
        config = fleet_config(tmp_path / "fleet.toml", f"http://127.0.0.1:{port}/mcp", store,
                              modern_url=f"http://127.0.0.1:{modern_port}/mcp")
        started: list[scale_peers.Instance] = []
        try:
            for name in ("fleet-a", "fleet-b"):
                bind = peers.free_port()
                # fleet-a's id is the option's, fleet-b's the MCP_BRIDGE_INSTANCE_ID variable's: both override the
                # config's [bridge] instance_id.
                cmd = [*peers.bridge_cmd(), "serve", "--config", str(config), "--listen", f"127.0.0.1:{bind}", "--log-level", "warning"]
                env = {"MCP_BRIDGE_ADMIN_TOKEN": "scale-fleet-admin"}
                if name == "fleet-a":
                    cmd += ["--instance-id", name]
                else:
                    env["MCP_BRIDGE_INSTANCE_ID"] = name
                started.append(scale_peers.Instance(name, bind, cmd, env=env))
                started[-1].start()
            yield started[0], started[1]
        finally:
            for inst in started:
                inst.stop()


def test_fleet_retry_sealed_by_the_other_instance_is_forwarded(fleet: tuple[scale_peers.Instance, scale_peers.Instance]) -> None:
    a, b = fleet
    r1 = modern_tool_call(url(a), "two_questions", 1)
    (key,) = r1["result"]["inputRequests"]
    # The retry lands on b: forwarded to a, which holds the parked upstream call.
    r2 = modern_tool_call(url(b), "two_questions", 2, responses={key: NAME}, state=r1["result"]["requestState"])
    assert r2["result"]["resultType"] == "input_required", r2
    (key2,) = r2["result"]["inputRequests"]
    r3 = modern_tool_call(url(b), "two_questions", 3, responses={key2: COLOR}, state=r2["result"]["requestState"])
    assert r3["result"]["content"][0]["text"] == "Ada likes teal", r3
    cluster_a, cluster_b = (health(inst)["servers"]["mrtr"]["cluster"] for inst in (a, b))
    assert cluster_a["instance"] == "fleet-a" and cluster_b["instance"] == "fleet-b"
    assert sorted(cluster_b["instances"]) == ["fleet-a", "fleet-b"], cluster_b
    assert cluster_b["forwarded"]["out"] == 2 and cluster_a["forwarded"]["in"] == 2, (cluster_a, cluster_b)
    metrics = httpx.get(f"http://127.0.0.1:{b.port}/metrics", timeout=10).text
    assert 'mcp_bridge_cluster_forwarded_total{instance="fleet-b",server="mrtr"} 2' in metrics, metrics


def test_fleet_servers_keep_their_state_apart(fleet: tuple[scale_peers.Instance, scale_peers.Instance]) -> None:
    a, b = fleet
    r1 = modern_tool_call(url(a, "mrtr"), "two_questions", 1)
    (key,) = r1["result"]["inputRequests"]
    # The same upstream under another server name: its instances' registry and parked calls are its own, so the
    # token (authentic: one key) is not forwarded into the wrong server.
    wrong = modern_tool_call(url(b, "other"), "two_questions", 2, responses={key: NAME}, state=r1["result"]["requestState"])
    assert wrong["error"]["code"] == -32602, wrong
    right = modern_tool_call(url(b, "mrtr"), "two_questions", 3, responses={key: NAME}, state=r1["result"]["requestState"])
    assert right["result"]["resultType"] == "input_required", right


def test_fleet_2025_session_is_served_through_either_instance(fleet: tuple[scale_peers.Instance, scale_peers.Instance]) -> None:
    a, b = fleet
    s = scale_peers.LegacySession(url(a, "modern"))
    assert s.open()["result"]["protocolVersion"] == "2025-11-25"
    # Requests reaching the other instance are relayed to the one holding the session
    # (/servers/modern/internal/session); DELETE there ends it everywhere.
    answer = s.request("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}}, url=url(b, "modern"))
    assert answer["result"]["content"][0]["text"] == "5", answer
    assert health(b)["servers"]["modern"]["cluster"]["relayed"]["out"] == 1
    assert httpx.delete(url(b, "modern"), headers=s.headers(), timeout=10).status_code == 200
    assert s.request("tools/list", url=url(a, "modern"))["status"] == 404


def test_fleet_shared_store_without_key_is_refused(tmp_path: Path) -> None:
    config = fleet_config(tmp_path / "fleet.toml", "http://127.0.0.1:9/mcp", "redis://127.0.0.1:9/0", key=None)
    env = {k: v for k, v in dict(os.environ).items() if k != "MCP_BRIDGE_STATE_KEY"}
    done = subprocess.run([*peers.bridge_cmd(), "serve", "--config", str(config), "--listen", f"127.0.0.1:{peers.free_port()}"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "state_key" in lines[0], done.stderr

"""Desktop hosts' config files in fleet mode (issue 15, acceptance 3): each shipped sample (Claude
Desktop, Cursor, VS Code, Cline, Windsurf) is read as it is, foreign keys are ignored with one warning
each, disabled servers are skipped, and `mcp-bridge serve --config FILE` starts and lists its servers.
Also fleet /healthz?strict=1."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import httpx
import pytest
from product_helpers import running

from mcp_eras.bridge.fleet import config as fc
from mcp_eras.bridge.translate.desktop import normalize

import peers

DESKTOP = peers.SAMPLES / "fleet" / "desktop"
SAMPLES = {
    "claude_desktop_config.json": (["everything", "fetch"], ["globalShortcut"]),
    "cursor_mcp.json": (["docs-search", "everything"], ["envFile"]),
    "vscode_mcp.json": (["everything", "search"], ["inputs", "dev"]),
    "cline_mcp_settings.json": (["everything", "tickets"], ["autoApprove", "alwaysAllow", "timeout"]),
    "windsurf_mcp_config.json": (["analytics", "everything"], ["disabledTools"]),
}


def test_every_host_has_a_sample() -> None:
    assert sorted(p.name for p in DESKTOP.glob("*.json")) == sorted(SAMPLES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_parse_with_one_warning_per_foreign_key(name: str) -> None:
    enabled, foreign = SAMPLES[name]
    path = DESKTOP / name
    data = json.loads(path.read_text())
    _, warnings = normalize(data, set(fc.ServerConfig.model_fields), source=name)
    assert sorted(w.split("'")[1] for w in warnings) == sorted(foreign)
    assert sorted(fc.load(path).enabled()) == enabled


def test_host_spellings_are_honoured() -> None:
    cfg = fc.parse('{"mcpServers": {"w": {"serverUrl": "http://h/mcp", "headers": {"A": "b"}},'
                   ' "c": {"type": "streamableHttp", "url": "http://h/mcp"},'
                   ' "t": {"transportType": "sse", "url": "http://h/sse"}}}', "x.json", "json")
    assert cfg.servers["w"].url == "http://h/mcp" and cfg.servers["w"].headers == {"A": "b"}
    assert cfg.servers["c"].http_transport() == "streamable-http"
    assert cfg.servers["t"].http_transport() == "sse"
    target = fc.server_target("s", fc.parse('{"servers": {"s": {"type": "stdio", "command": "x", "env": {"K": "v"}, "cwd": "d"}}}',
                                            "y.json", "json").servers["s"], base_dir=Path("/base"))
    assert target.env == {"K": "v"} and target.cwd == "/base/d"


def test_a_typo_of_a_bridge_key_is_still_an_error() -> None:
    with pytest.raises(fc.ConfigError, match="mcpServers.a.comand: unknown key"):
        fc.parse('{"mcpServers": {"a": {"comand": "x", "command": "y"}}}', "t.json", "json")


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_serve_config_starts_and_lists_the_servers(name: str) -> None:
    enabled, foreign = SAMPLES[name]
    # Only this environment's python on PATH: `python` runs the sample server; uvx/npx are not found
    # (those servers fail alone, as any server that cannot start does).
    env = {"PATH": os.path.dirname(sys.executable)}
    with running(["serve", "--config", str(DESKTOP / name), "--port", "0", "--log-format", "text"], env=env) as bridge:
        port = bridge.wait_listening()
        assert f"(servers: {', '.join(enabled)})" in bridge.log[-1]
        for key in foreign:
            assert sum(f"'{key}'" in line for line in bridge.log) == 1, bridge.log
        health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()
        assert sorted(health["servers"]) == enabled
        deadline = time.monotonic() + 60
        while health["servers"]["everything"]["state"] != "ok" and time.monotonic() < deadline:
            time.sleep(0.2)
            health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()
        assert health["servers"]["everything"]["state"] == "ok", health
        # The other server of each file is down (nothing listens there / not installed): strict says 503.
        strict = httpx.get(f"http://127.0.0.1:{port}/healthz?strict=1", timeout=10)
        assert strict.status_code == 503 and "everything" not in strict.json()["down"]
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
        ready = _wait_ready(f"http://127.0.0.1:{port}/readyz")
        assert ready.status_code == 200 and ready.text == "ready\n"
        code, err = bridge.interrupt()
    assert code in (0, 130) and "Traceback" not in err


def _wait_ready(url: str) -> httpx.Response:
    """/readyz turns 200 once every server made its first start attempt (failures included)."""
    deadline = time.monotonic() + 60
    while True:
        resp = httpx.get(url, timeout=10)
        if resp.status_code == 200 or time.monotonic() > deadline:
            return resp
        assert resp.text.startswith("not ready: ")
        time.sleep(0.2)


def test_fleet_port_in_use_is_one_line(tmp_path: Path) -> None:
    import socket

    from product_helpers import assert_one_line_error, bridge, tiny_cmd

    config = tmp_path / "fleet.json"
    config.write_text(json.dumps({"mcpServers": {"tiny": {"command": tiny_cmd()[0], "args": tiny_cmd()[1:]}}}))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = bridge("serve", "--config", str(config), "--port", str(port), "--log-level", "error")
    assert_one_line_error(proc, 1, f"cannot listen on 127.0.0.1:{port}: address already in use")

"""Acceptance 2: `mcp-bridge probe` reports the right era, versions, inventory and features of each
sample server; its --json validates against bridge/fleet/probe.schema.json; exit status for CI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import fleet_peers as fp
import pytest

from mcp_eras.bridge.fleet import probe

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream]


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    tmp = tmp_path_factory.mktemp("probe")
    with fp.http_samples() as urls:
        servers = {
            **fp.mixed_servers(urls),
            "dual-stdio": {"command": fp.peers.MODERN_PYTHON, "args": [str(fp.MODERN_SERVER), "stdio"]},
            "broken": {"command": str(tmp / "no-such-server")},
        }
        path = tmp / "fleet.toml"
        path.write_text(fp.fleet_toml(servers))
        yield path


def test_probe_config_json(config: Path) -> None:
    proc = fp.run_cli("probe", "--config", str(config), "--json")
    assert proc.returncode == 1, proc.stderr[-3000:]  # the broken server fails the run
    report = json.loads(proc.stdout)
    probe.validate(report)
    servers = {s["name"]: s for s in report["servers"]}
    assert set(servers) == {*fp.EXPECTED_ERA, "dual-stdio", "broken"}
    assert not servers["broken"]["ok"] and servers["broken"]["error"]
    for name, era in {**fp.EXPECTED_ERA, "dual-stdio": fp.MODERN}.items():
        s = servers[name]
        assert s["ok"], s
        assert s["era"] == era
        assert s["serverInfo"]["name"] == ("legacy-everything" if era == fp.LEGACY else "modern-everything")
        assert s["counts"] == {"tools": 8, "prompts": 2, "resources": 3, "resourceTemplates": 1}
        features = {f["name"]: f["status"] for f in s["features"]}
        assert features["subscriptions"] == "translated"
        assert features["logging"] == "translated"
        assert features["completions"] == "native"
        assert "untranslatable" not in features.values()
        if era == fp.LEGACY:
            assert s["versions"] == ["2025-11-25"]
            assert features["server-requests"] == "translated"
            assert s["capabilities"]["resources"]["subscribe"] is True
        else:
            assert features["input-required"] == "translated"
    assert servers["modern-stdio"]["versions"] == ["2026-07-28"]  # --modern-only refuses initialize
    assert servers["dual-stdio"]["versions"] == ["2026-07-28", "2025-11-25"]
    assert servers["legacy-sse"]["transport"] == "sse"
    assert servers["legacy-http"]["transport"] == "streamable-http"
    assert servers["legacy-stdio"]["transport"] == "stdio"
    assert report["summary"] == {"total": 7, "ok": 6, "failed": 1, "modern": 3, "legacy": 3, "untranslatable": 0}
    assert "[7/7]" in proc.stderr  # progress display on stderr


def test_probe_targets_table_and_exit_status(config: Path) -> None:
    legacy = " ".join(fp.legacy_cmd("stdio"))
    proc = fp.run_cli("probe", legacy, "--expect-era", fp.LEGACY)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "legacy-everything 0.1.0" in proc.stdout
    assert "1 servers: 1 answered (0 on 2026-07-28, 1 on 2025-11-25), 0 failed" in proc.stdout
    proc = fp.run_cli("probe", legacy, "--expect-era", fp.MODERN, "--quiet")
    assert proc.returncode == 1
    assert proc.stderr.count("[1/1]") == 0


def test_probe_rejects_a_bad_config(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[servers.a]\ncommand = "x"\nurl = "http://127.0.0.1:1/mcp"\n')
    proc = fp.run_cli("probe", "--config", str(bad))
    assert proc.returncode == 2
    assert "bad.toml:1: servers.a: give exactly one of 'command' (stdio) or 'url' (HTTP)" in proc.stderr


def test_serve_rejects_a_bad_config_before_listening(tmp_path: Path) -> None:
    bad = tmp_path / "fleet.toml"
    bad.write_text('[servers.a]\nurl = "http://127.0.0.1:1/mcp"\nbearer_env = "FLEET_TEST_UNSET_TOKEN"\n')
    proc = fp.run_cli("serve", "--config", str(bad), "--listen", f"127.0.0.1:{fp.peers.free_port()}")
    assert proc.returncode == 2
    assert "server 'a': environment variable FLEET_TEST_UNSET_TOKEN (bearer_env) is not set" in proc.stderr

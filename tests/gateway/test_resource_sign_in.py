"""Issue 34, acceptance 1 (resource-server part): a 2026 client (mcp 2.3.0) and a 2025 client (mcp 1.29) sign in
through the bridge's protected resource metadata alone, at a real authorization server (npm oidc-provider,
tests/auth/as_server.mjs), and call a tool of a 2025 and of a 2026 server in fleet mode, and of the single-server
front. Each client's token names the endpoint it called as its audience, and the fleet's other server refuses it;
the bridge's log holds no token.

Expired tokens, an unknown key and key rotation at the real server (restarted on the same issuer with a new key):
test_resource_real_as.py. Every other refusal and session binding: test_resource_guard.py (against keys the test controls).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import peers

sys.path.insert(0, str(peers.ROOT / "tests" / "fleet"))
sys.path.insert(0, str(peers.ROOT / "tests" / "auth"))
import fleet_peers as fp  # noqa: E402
from parts import SCOPE, AuthServer, auth_server  # noqa: E402

pytestmark = [pytest.mark.legacy_peer, pytest.mark.timeout(600)]
CLIENT = Path(__file__).resolve().parent / "resource_client.py"


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthServer]:
    with auth_server() as server:
        yield server


def sign_in_and_call(era: str, url: str, other: str | None = None) -> dict[str, Any]:
    python = peers.MODERN_PYTHON if era == fp.MODERN else peers.legacy_python()
    proc = subprocess.run([str(python), str(CLIENT), "--era", era, "--url", url, *(["--other", other] if other else [])],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=240)
    assert proc.returncode == 0, f"the {era} client failed:\n{proc.stderr[-3000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fleet(issuer: AuthServer) -> Iterator[tuple[fp.FleetBridge, Path]]:
    with tempfile.TemporaryDirectory(prefix="fleet-") as tmp:
        servers = {"modern": {"command": peers.MODERN_PYTHON, "args": [str(fp.MODERN_SERVER), "stdio"]},
                   "legacy": {"command": peers.legacy_python(), "args": [str(fp.LEGACY_SERVER), "stdio"]}}
        port = peers.free_port()
        config, log = Path(tmp) / "fleet.toml", Path(tmp) / "bridge.log"
        config.write_text(fp.fleet_toml(servers) + f'\n[auth]\nissuer = "{issuer.issuer}"\n'
                          f'audience = "http://127.0.0.1:{port}"\nrequired_scopes = ["{SCOPE}"]\n')
        cmd = [*peers.bridge_cmd(), "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}", "--log-level", "debug"]
        with log.open("wb") as sink:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sink,
                                    env={**os.environ, **fp.ADMIN_ENV})
            try:
                peers.wait_port(port, proc)
                bridge = fp.FleetBridge(proc, port, config)
                fp.wait_for(lambda: httpx.get(f"{bridge.base}/readyz", timeout=30).status_code == 200, "the fleet's starts")
                yield bridge, log
            finally:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


@pytest.mark.parametrize("client_era", [fp.MODERN, fp.LEGACY], ids=["2026-client", "2025-client"])
@pytest.mark.parametrize("server", ["modern", "legacy"], ids=["2026-server", "2025-server"])
def test_fleet_sign_in_through_the_bridge_metadata(fleet: tuple[fp.FleetBridge, Path], client_era: str, server: str) -> None:
    bridge, log = fleet
    url, other = bridge.url(server), bridge.url("legacy" if server == "modern" else "modern")
    out = sign_in_and_call(client_era, url, other)
    assert out["text"] == "hi"
    assert out["aud"] == url and SCOPE in out["scope"].split()
    # the same token at the fleet's other server: issued for another resource (RFC 8707), refused
    assert out["other"]["status"] == 401
    assert 'error="invalid_token"' in out["other"]["challenge"]
    assert 'error_description="token was issued for another resource"' in out["other"]["challenge"]
    leaks = [line for line in log.read_text(errors="replace").splitlines() if "eyJ" in line]
    assert not leaks, leaks[:3]


@pytest.mark.parametrize("client_era", [fp.MODERN, fp.LEGACY], ids=["2026-client", "2025-client"])
def test_single_front_sign_in(issuer: AuthServer, client_era: str) -> None:
    port = peers.free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning", "--auth-issuer",
           issuer.issuer, "--auth-audience", url, "--auth-required-scope", SCOPE, "--", peers.legacy_python(),
           str(fp.LEGACY_SERVER), "stdio"]
    with peers.running(cmd, port):
        out = sign_in_and_call(client_era, url)
    assert out["text"] == "hi" and out["aud"] == url

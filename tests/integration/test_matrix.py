"""The whole compatibility matrix through ONE bridge endpoint with default settings (front and upstream
era both ``auto``): a 2025 client and a 2026 client, each against a 2025-only server and a 2026-only
server. Without the bridge, two of these four pairings fail (the spec's own matrix)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_samples_direct import check_basic_common, run_client

import peers

LEGACY_SERVER = ("legacy", "everything_server.py", ())
MODERN_SERVER = ("modern", "everything_server.py", ("--modern-only",))


@pytest.fixture(params=[LEGACY_SERVER, MODERN_SERVER], ids=["2025-server", "2026-server"])
def bridged_server(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    era, script, extra = request.param
    python = peers.legacy_python() if era == "legacy" else peers.MODERN_PYTHON
    up, port = peers.free_port(), peers.free_port()
    server = [python, str(peers.SAMPLES / era / script), "http", "--port", str(up), *extra]
    bridge = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning",
              "--upstream", f"http://127.0.0.1:{up}/mcp"]
    with peers.running(server, up), peers.running(bridge, port):
        yield era, f"http://127.0.0.1:{port}/mcp"


@pytest.mark.legacy_peer
@pytest.mark.parametrize("client", ["legacy", "modern"], ids=["2025-client", "2026-client"])
def test_any_client_any_server(bridged_server: tuple[str, str], client: str) -> None:
    server_era, url = bridged_server
    python = peers.legacy_python() if client == "legacy" else peers.MODERN_PYTHON
    script = str(peers.SAMPLES / "clients" / f"{client}_client.py")
    report = run_client(python, script, [url], ["basic", "errors"])
    basic = report["scenarios"]["basic"]["steps"]
    check_basic_common(basic)
    assert basic["server"]["name"] == f"{server_era}-everything"
    expected_version = "2026-07-28" if client == "modern" else "2025-11-25"
    assert report["protocol_version"] == expected_version
    missing = report["scenarios"]["errors"]["steps"]["missing_resource"]
    # Each client sees resource-not-found in its own era's numbering, whatever the server's era.
    assert missing["code"] == (-32602 if client == "modern" else -32002)

"""Issue #30, acceptance 3 (single server): ``mcp-bridge serve --listen`` publishes the Server Card of its endpoint
(``/mcp/server-card``) and the AI Catalog (``/.well-known/ai-catalog.json``), for a bridged 2025 server and a bridged
2026 server; each validates against the extension's schema and agrees with the endpoint's ``server/discover``."""

from __future__ import annotations

import httpx
import pytest
import server_card_checks as checks

import peers

LEGACY = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "everything_server.py")]
MODERN = [peers.MODERN_PYTHON, str(peers.SAMPLES / "modern" / "everything_server.py"), "stdio", "--modern-only"]


@pytest.mark.legacy_peer
@pytest.mark.parametrize(("server", "front_era", "legacy_front"), [
    (LEGACY, "auto", True), (MODERN, "auto", True), (LEGACY, "2026-07-28", False)], ids=["legacy", "modern", "legacy-2026-front"])
def test_card_and_catalog_of_a_bridged_server(server: list[str], front_era: str, legacy_front: bool) -> None:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning",
           "--front-era", front_era, "--", *server]
    base = f"http://127.0.0.1:{port}"
    with peers.running(cmd, port), httpx.Client(timeout=60) as client:
        card = checks.check_endpoint(client, f"{base}/mcp", legacy_front=legacy_front)
        catalog, _ = checks.fetch(client, f"{base}/.well-known/ai-catalog.json", "application/ai-catalog+json")
        checks.validate_catalog(catalog)
        (entry,) = catalog["entries"]
        assert entry["url"] == f"{base}/mcp/server-card"
        assert entry["identifier"] == "urn:air:127.0.0.1:mcp:" + card["name"].split("/", 1)[1]

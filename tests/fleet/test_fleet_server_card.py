"""Issue #30, acceptance 3 (fleet): each server of a fleet has its Server Card at ``/servers/{name}/mcp/server-card``
and one AI Catalog lists them all; every card validates and agrees with its endpoint's ``server/discover``."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import server_card_checks as checks
from fleet_peers import LEGACY_SERVER, MODERN_SERVER, fleet_bridge

import peers


@pytest.mark.legacy_peer
def test_fleet_cards_and_catalog(tmp_path: Path) -> None:
    servers = {"old": {"command": peers.legacy_python(), "args": [str(LEGACY_SERVER), "stdio"]},
               "new": {"command": peers.MODERN_PYTHON, "args": [str(MODERN_SERVER), "stdio", "--modern-only"]}}
    with fleet_bridge(tmp_path, servers) as fleet, httpx.Client(timeout=60) as client:
        cards = {name: checks.check_endpoint(client, fleet.url(name)) for name in servers}
        assert cards["old"]["name"] != cards["new"]["name"]
        catalog, _ = checks.fetch(client, f"{fleet.base}/.well-known/ai-catalog.json", "application/ai-catalog+json")
        checks.validate_catalog(catalog)
        assert sorted(e["url"] for e in catalog["entries"]) == sorted(fleet.url(n) + "/server-card" for n in servers)
        assert client.get(f"{fleet.base}/servers/missing/mcp/server-card").status_code == 404

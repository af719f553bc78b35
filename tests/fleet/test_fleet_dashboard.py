"""Issue 16, acceptance 3: the /fleet dashboard renders in headless Chromium (Debian's ``chromium``,
installed by .ci/bootstrap.sh). Real traffic from both eras first, so every part has data; then a
screenshot (kept as artifacts/fleet-dashboard.png for CI) and the rendered DOM: a row per server,
the two era charts, no scripts. Skipped only when no Chromium binary exists."""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import fleet_peers as fp
import httpx
import pytest

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream, fp.needs_legacy_front]

ARTIFACTS = fp.peers.ROOT / "artifacts"
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
SERVERS = ("billing", "billing-v2", "docs", "search")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[fp.FleetBridge]:
    tmp = tmp_path_factory.mktemp("dashboard")
    servers = {
        "billing": {**fp.variant("--read-only", "weather", "add"), "era": fp.LEGACY, "shadow": "billing-v2", "shadow_timeout": 120},
        "billing-v2": {**fp.twin_cmd("--drift", "result", "--read-only", "weather", "add"), "era": fp.MODERN},
        "docs": {"command": fp.peers.legacy_python(), "args": [str(fp.LEGACY_SERVER), "stdio"], "era": fp.LEGACY,
                 "canary": {"to": "search", "weight": 0.25}},
        "search": {"command": fp.peers.MODERN_PYTHON, "args": [str(fp.MODERN_SERVER), "stdio", "--modern-only"], "era": fp.MODERN},
    }
    with fp.fleet_bridge(tmp, servers) as bridge:
        asyncio.run(traffic(bridge))
        yield bridge


async def traffic(bridge: fp.FleetBridge) -> None:
    async with httpx.AsyncClient(timeout=120) as client:
        await fp.rpc(client, bridge.url("billing"), "tools/list")
        for k in range(30):
            await fp.tool(client, bridge.url("billing"), "add", {"a": k, "b": 1})
            await fp.rpc(client, bridge.url(("docs", "search")[k % 2]), "tools/call", {"name": "echo", "arguments": {"text": "hi"}},
                         headers={"Authorization": f"Bearer token-{k % 6}"})
        for name in ("billing", "docs", "search"):
            session = await fp.legacy_session(client, bridge.url(name))
            for k in range(5):
                _, frame = await fp.legacy_post(client, bridge.url(name), {"jsonrpc": "2.0", "id": k + 1, "method": "tools/call",
                                                                          "params": {"name": "echo", "arguments": {"text": "x"}}},
                                                session)
                assert frame is not None and "result" in frame, frame

        async def compared() -> bool:
            doc = (await client.get(f"{bridge.base}/fleet/status", headers=fp.ADMIN_HEADERS)).json()
            shadow = next(s for s in doc["servers"] if s["name"] == "billing")["shadow"]
            return shadow["pending"] == 0 and shadow["diverged"] >= 1

        await fp.until(compared, "the drifted twin's divergences", bound=120)


def chromium(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           f"--user-data-dir={tmp / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium binary (install Debian's chromium: .ci/bootstrap.sh as root)")
def test_dashboard_renders_in_headless_chromium(fleet: fp.FleetBridge, tmp_path: Path) -> None:
    url = f"{fleet.base}/fleet?token={fp.ADMIN_TOKEN}"  # swapped for a cookie and a redirect to /fleet
    dom = chromium("--dump-dom", url, tmp=tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    assert "<script" not in html
    for name in SERVERS:
        assert re.search(rf"<tr><td><strong>{re.escape(name)}</strong>", html), f"no row for {name}"
    assert html.count("<tr><td><strong>") == len(SERVERS)
    assert 'id="era-chart-client"' in html and 'id="era-chart-upstream"' in html
    assert re.search(r'<rect [^>]*fill="#d97706"', html) and re.search(r'<rect [^>]*fill="#0f766e"', html)  # both eras drawn
    assert "2025-11-25" in html and "2026-07-28" in html and "Latest divergences" in html
    ARTIFACTS.mkdir(exist_ok=True)
    png = ARTIFACTS / "fleet-dashboard.png"
    png.unlink(missing_ok=True)
    shot = chromium(f"--screenshot={png}", "--window-size=1400,1100", url, tmp=tmp_path)
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000

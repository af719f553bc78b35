"""Acceptance 5: killing one server's process again and again does not disturb calls to the others;
the killed one is respawned (with backoff) and serves again, and /healthz and /metrics report it."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fleet_peers as fp
import httpx
import pytest

from pids import kill_descendant

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream]

KILLS = 3
WORKERS = 8
BRIDGE = {"respawn_backoff_initial": 0.2, "respawn_backoff_max": 2.0}


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    with fp.http_samples() as urls:
        yield urls



async def kill_repeatedly(bridge: fp.FleetBridge, victim: str) -> dict[str, Any]:
    others = [n for n in fp.EXPECTED_ERA if n != victim]
    stats: dict[str, Counter[str]] = {n: Counter() for n in others}
    errors: list[str] = []
    stop = asyncio.Event()
    killed: list[int] = []
    async with httpx.AsyncClient(timeout=120) as client:
        for name in fp.EXPECTED_ERA:
            assert await fp.echo(client, bridge.url(name), "warm") == "warm"

        async def worker(i: int) -> None:
            n = 0
            while not stop.is_set():
                for name in others:
                    text = f"w{i}-{n}-{name}"
                    try:
                        assert await fp.echo(client, bridge.url(name), text) == text
                        stats[name]["ok"] += 1
                    except Exception as exc:  # noqa: BLE001 - counted, then asserted on
                        stats[name]["failed"] += 1
                        errors.append(f"{name}: {exc!r}")
                n += 1

        async def victim_status() -> dict[str, Any]:
            return (await client.get(f"{bridge.base}/servers/{victim}/healthz")).json()

        async def victim_serves() -> bool:
            return await fp.echo(client, bridge.url(victim), "alive?") == "alive?"

        async def killer() -> None:
            try:
                for k in range(KILLS):
                    await fp.until(victim_serves, f"{victim} to serve before kill {k + 1}")
                    pids = (await victim_status())["pids"]
                    assert pids, await victim_status()
                    for pid in pids:
                        kill_descendant(pid)  # a reused pid (the child already gone) is left alone
                    killed.extend(pids)

                    async def respawned(k: int = k, pids: list[int] = pids) -> bool:
                        st = await victim_status()
                        return st["restarts"] >= k + 1 and bool(st["pids"]) and not set(st["pids"]) & set(pids)

                    await fp.until(respawned, f"{victim} to be respawned after kill {k + 1}")
                await fp.until(victim_serves, f"{victim} to serve after the last kill")
            finally:
                stop.set()

        await asyncio.gather(*(worker(i) for i in range(WORKERS)), killer())
        final = await victim_status()
    return {"stats": stats, "errors": errors, "killed": killed, "final": final}


@pytest.mark.parametrize("victim", ["legacy-stdio", "modern-stdio"])
def test_killing_one_server_leaves_the_others_alone(tmp_path: Path, urls: dict[str, str], victim: str) -> None:
    with fp.fleet_bridge(tmp_path, fp.mixed_servers(urls), BRIDGE) as bridge:
        out = asyncio.run(kill_repeatedly(bridge, victim))
        stats = out["stats"]
        total = sum(c["ok"] + c["failed"] for c in stats.values())
        failed = sum(c["failed"] for c in stats.values())
        print(f"\nkill {victim} x{KILLS} (pids {out['killed']}): {total} calls to the others, {failed} failed",
              file=sys.stderr)
        assert failed == 0, out["errors"][:5]
        assert all(c["ok"] >= WORKERS for c in stats.values()), stats
        assert len(out["killed"]) >= KILLS
        assert out["final"]["restarts"] >= KILLS
        assert out["final"]["state"] == "ok"
        health = bridge.health()["servers"]
        for name in fp.EXPECTED_ERA:
            if name != victim:
                assert health[name]["restarts"] == 0 and health[name]["state"] == "ok"
        text = bridge.metrics()
        assert fp.metric(text, "mcp_bridge_upstream_restarts_total", server=victim) >= KILLS
        assert fp.metric(text, "mcp_bridge_upstream_up", server=victim) == 1
        for name in fp.EXPECTED_ERA:
            if name != victim:
                assert fp.metric(text, "mcp_bridge_upstream_restarts_total", server=name) == 0
                assert fp.metric(text, "mcp_bridge_requests_total", server=name, outcome="error") == 0

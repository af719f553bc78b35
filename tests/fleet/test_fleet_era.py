"""Era detection per upstream: cached, re-probed when the cache expires, and re-probed at once on an
era-typical failure, so a server upgraded in place (same URL, now 2026-only) is noticed and served
through a new upstream of the right era without touching the bridge's config."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import fleet_peers as fp
import httpx
import pytest

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream]


def test_server_upgraded_in_place_is_noticed(tmp_path: Path) -> None:
    port, other = fp.peers.free_port(), fp.peers.free_port()
    servers = {
        "inplace": {"url": f"http://127.0.0.1:{port}/mcp"},
        # re-probed every 0.2 s; a probe that got no answer in time would class it 2025 and swap it (generation 2),
        # so its probe timeout is one a loaded machine never reaches: the test is about the expiry, not the timeout
        "steady": {"url": f"http://127.0.0.1:{other}/mcp", "era_cache_ttl": 0.2, "probe_timeout": 120},
    }
    with contextlib.ExitStack() as stack:
        stack.enter_context(fp.peers.running(fp.modern_cmd("http", "--port", str(other), "--modern-only"), other))
        old = stack.enter_context(fp.peers.running(fp.legacy_cmd("http", "--port", str(port)), port))
        bridge = stack.enter_context(fp.fleet_bridge(tmp_path, servers))

        async def scenario() -> list[str | None]:
            async with httpx.AsyncClient(timeout=60) as client:
                before = await fp.tool(client, bridge.url("inplace"), "echo", {"text": "old"})
                # the upgrade: same URL, the legacy server replaced by a 2026-only one
                old.terminate()
                await asyncio.to_thread(old.wait)
                with fp.peers.running(fp.modern_cmd("http", "--port", str(port), "--modern-only"), port):

                    async def modern_answers() -> str | None:
                        _, who = await fp.tool(client, bridge.url("inplace"), "echo", {"text": "new"})
                        return who if who == "modern-everything" else None

                    after = await fp.until(modern_answers, "the bridge to notice the upgrade")

                    async def steady_reprobed() -> bool:
                        await fp.echo(client, bridge.url("steady"), "tick")
                        text = (await client.get(f"{bridge.base}/metrics")).text
                        return fp.metric(text, "mcp_bridge_era_probes_total", server="steady", era=fp.MODERN) >= 2

                    await fp.until(steady_reprobed, "the expired era of 'steady' to be probed again")
                    return [before[1], after]

        assert asyncio.run(scenario()) == ["legacy-everything", "modern-everything"]
        health = bridge.health()["servers"]
        assert health["inplace"]["era"] == fp.MODERN and health["inplace"]["generation"] >= 2
        assert health["steady"]["generation"] == 1  # same era on re-probe: nothing replaced
        text = bridge.metrics()
        assert fp.metric(text, "mcp_bridge_upstream_swaps_total", server="inplace", reason="era") >= 1
        assert fp.metric(text, "mcp_bridge_era_probes_total", server="inplace", era=fp.LEGACY) >= 1
        assert fp.metric(text, "mcp_bridge_era_probes_total", server="inplace", era=fp.MODERN) >= 1
        assert fp.metric(text, "mcp_bridge_upstream_swaps_total", server="steady") == 0

"""Acceptance 4: a staged upgrade. While 32 concurrent clients call every server, a reload swaps one
server's command from the mcp 1.29 legacy sample to the mcp 2.3.0 modern one: the other servers see
zero failed calls, calls in flight on the old upstream complete, new calls reach the new one. Then
SIGHUP swaps it back, and a broken config is rejected without touching anything."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fleet_peers as fp
import httpx
import pytest

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream]

CLIENTS = 32
MIN_ROUNDS = 3
ROUNDS_AFTER_RELOAD = 2
GATED_CALLS = 4

OLD_SWAP = {"command": fp.peers.legacy_python(), "args": fp.gate_cmd()[1:]}
NEW_SWAP = {"command": fp.peers.MODERN_PYTHON, "args": [str(fp.MODERN_SERVER), "stdio", "--modern-only"]}
BRIDGE = {"drain_timeout": 600}


@pytest.fixture(scope="module")
def urls() -> Iterator[dict[str, str]]:
    with fp.http_samples() as urls:
        yield urls


def fleet(urls: dict[str, str], swap: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {**fp.mixed_servers(urls), "swap": swap}


async def health(client: httpx.AsyncClient, bridge: fp.FleetBridge) -> dict[str, Any]:
    return (await client.get(f"{bridge.base}/healthz")).json()["servers"]



async def staged_upgrade(bridge: fp.FleetBridge, urls: dict[str, str], gate: Path) -> dict[str, Any]:
    names = list(fleet(urls, OLD_SWAP))
    limits = httpx.Limits(max_connections=CLIENTS * 2 + GATED_CALLS + 8, max_keepalive_connections=CLIENTS * 2)
    async with httpx.AsyncClient(timeout=300, limits=limits) as client:
        for name in names:  # every upstream started before the load
            assert await fp.echo(client, bridge.url(name), "warm") == "warm"

        gated = [asyncio.create_task(fp.tool(client, bridge.url("swap"), "wait_for_file", {"path": str(gate)}))
                 for _ in range(GATED_CALLS)]

        async def gated_in_flight() -> bool:
            return (await health(client, bridge))["swap"]["inflight"] >= GATED_CALLS

        await fp.until(gated_in_flight, "the gated calls to be in flight on the old upstream")
        listening = asyncio.create_task(fp.listen(client, bridge.url("swap"), {"toolsListChanged": True}))

        async def stream_open() -> bool:
            return (await health(client, bridge))["swap"]["streams"] >= 1

        await fp.until(stream_open, "the listen stream to be open on the old upstream")

        stats: dict[str, Counter[str]] = defaultdict(Counter)
        errors: list[str] = []
        served_by: dict[str, Counter[str]] = {"before": Counter(), "after": Counter()}
        first_round_done = 0
        first_round = asyncio.Event()
        reloaded = asyncio.Event()

        async def worker(i: int) -> None:
            nonlocal first_round_done
            rounds = after = 0
            while rounds < MIN_ROUNDS or after < ROUNDS_AFTER_RELOAD:
                issued_after_reload = reloaded.is_set()
                for name in names:
                    text = f"c{i}-r{rounds}-{name}"
                    try:
                        got, who = await fp.tool(client, bridge.url(name), "echo", {"text": text})
                        assert got == text, f"{got!r} != {text!r}"
                    except Exception as exc:  # noqa: BLE001 - counted, then asserted on
                        stats[name]["failed"] += 1
                        errors.append(f"{name}: {exc!r}")
                        if len(errors) > 20:  # broken beyond repair: stop, and let the asserts show why
                            reloaded.set()
                            first_round.set()
                            return
                        continue
                    stats[name]["ok"] += 1
                    if name == "swap":
                        served_by["after" if issued_after_reload else "before"][str(who)] += 1
                rounds += 1
                after += issued_after_reload
                if rounds == 1:
                    first_round_done += 1
                    if first_round_done == CLIENTS:
                        first_round.set()

        async def reloader() -> dict[str, Any]:
            await first_round.wait()  # every client is mid-stream
            try:
                bridge.write(fleet(urls, NEW_SWAP), BRIDGE)
                proc = await asyncio.create_subprocess_exec(*fp.peers.bridge_cmd(), "reload", "--url", bridge.base,
                                                            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                            env={**os.environ, **fp.ADMIN_ENV})
                out, err = await proc.communicate()
                assert proc.returncode == 0, err.decode()[-2000:]
                return json.loads(out)
            finally:
                reloaded.set()  # also on failure, so the clients wind down

        results = await asyncio.gather(*(worker(i) for i in range(CLIENTS)), reloader())
        reload_answer = results[-1]

        during = (await health(client, bridge))["swap"]
        await asyncio.to_thread(gate.write_text, "open")
        gated_results = await asyncio.gather(*gated)

        async def drained() -> bool:
            return (await health(client, bridge))["swap"]["draining"] == []

        await fp.until(drained, "the old upstream to close once its calls finished (an open listen must not hold it)")
        listen_frames = await listening
        after = (await health(client, bridge))["swap"]
        return {"listen": listen_frames, "stats": stats, "errors": errors, "served_by": served_by, "reload": reload_answer,
                "during": during, "after": after, "gated": gated_results}


def test_staged_upgrade_under_load(tmp_path: Path, urls: dict[str, str]) -> None:
    gate = tmp_path / "gate"
    with fp.fleet_bridge(tmp_path, fleet(urls, OLD_SWAP), BRIDGE) as bridge:
        out = asyncio.run(staged_upgrade(bridge, urls, gate))
        stats = out["stats"]
        total = sum(c["ok"] + c["failed"] for c in stats.values())
        failed = sum(c["failed"] for c in stats.values())
        print(f"\nreload under load: {CLIENTS} clients, {total} calls, {failed} failed; "
              f"swap served before={dict(out['served_by']['before'])} after={dict(out['served_by']['after'])}", file=sys.stderr)

        assert out["reload"]["ok"] is True
        assert out["reload"]["replaced"] == ["swap"]
        assert sorted(out["reload"]["unchanged"]) == sorted(fp.EXPECTED_ERA)
        for name in fp.EXPECTED_ERA:  # the other servers: not one failed call
            assert stats[name]["failed"] == 0, out["errors"][:5]
            assert stats[name]["ok"] >= CLIENTS * (MIN_ROUNDS + 0)
        assert stats["swap"]["failed"] == 0, out["errors"][:5]
        # in-flight calls on the old upstream completed, after the swap
        assert out["during"]["generation"] == 2 and out["during"]["draining"] == [1]
        assert [g[0] for g in out["gated"]] == [f"released {gate}"] * GATED_CALLS
        # the listen stream on the old upstream did not hold the drain; it ended with a final result
        assert "result" in out["listen"][-1], out["listen"]
        assert out["listen"][0].get("method") == "notifications/subscriptions/acknowledged", out["listen"][0]
        assert {g[1] for g in out["gated"]} == {"legacy-everything"}
        # new calls went to the new upstream
        assert set(out["served_by"]["after"]) == {"modern-everything"}
        assert sum(out["served_by"]["after"].values()) >= CLIENTS * ROUNDS_AFTER_RELOAD
        assert out["after"]["era"] == fp.MODERN and out["after"]["draining"] == []

        text = bridge.metrics()
        assert fp.metric(text, "mcp_bridge_upstream_swaps_total", server="swap", reason="reload") == 1
        assert fp.metric(text, "mcp_bridge_reloads_total", outcome="ok") == 1
        for name in fp.EXPECTED_ERA:
            assert fp.metric(text, "mcp_bridge_upstream_generation", server=name) == 1

        # SIGHUP: swap it back
        bridge.write(fleet(urls, OLD_SWAP), BRIDGE)
        bridge.proc.send_signal(signal.SIGHUP)
        fp.wait_for(lambda: bridge.health()["servers"]["swap"]["generation"] == 3, "the SIGHUP reload")

        async def back() -> tuple[str, str | None]:
            async with httpx.AsyncClient(timeout=120) as client:
                return await fp.tool(client, bridge.url("swap"), "echo", {"text": "back"})

        assert asyncio.run(back()) == ("back", "legacy-everything")

        # a broken config is rejected, naming the line; nothing changes
        bridge.config.write_text(bridge.config.read_text() + '\n[servers.bad]\ncommand = "x"\nurl = "http://127.0.0.1:1/mcp"\n')
        proc = fp.run_cli("reload", "--url", bridge.base)
        assert proc.returncode == 1
        assert "fleet.toml:" in proc.stderr and "servers.bad: give exactly one of 'command'" in proc.stderr
        health_after = bridge.health()["servers"]
        assert "bad" not in health_after and health_after["swap"]["generation"] == 3
        assert fp.metric(bridge.metrics(), "mcp_bridge_reloads_total", outcome="error") == 1


def test_a_2025_session_survives_the_swap(tmp_path: Path) -> None:
    """The 2025 client keeps its session (held by the bridge's 2025 front) while the server behind it
    is swapped from the legacy sample to the 2026-only one: no re-initialize, no error."""
    servers = {"swap": {"command": fp.peers.legacy_python(), "args": fp.legacy_cmd("stdio")[1:]}}
    with fp.fleet_bridge(tmp_path, servers) as bridge:

        async def scenario() -> list[str | None]:
            async with httpx.AsyncClient(timeout=120) as client:
                url = bridge.url("swap")
                resp, init = await fp.legacy_post(client, url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": fp.LEGACY, "capabilities": {}, "clientInfo": {"name": "raw-2025", "version": "1"}}}, None)
                session = resp.headers["mcp-session-id"]
                assert init["result"]["protocolVersion"] == fp.LEGACY
                await fp.legacy_post(client, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
                served = []
                for rid, swap_to in ((2, NEW_SWAP), (3, None)):
                    _, answer = await fp.legacy_post(client, url, {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                                                "params": {"name": "echo", "arguments": {"text": f"call {rid}"}}}, session)
                    assert answer["result"]["content"][0]["text"] == f"call {rid}", answer
                    served.append((await health_of(client, bridge))["era"])
                    if swap_to is not None:
                        bridge.write({"swap": swap_to})
                        reload = await client.post(f"{bridge.base}/admin/reload", headers=fp.ADMIN_HEADERS)
                        assert reload.json()["replaced"] == ["swap"]
                return served

        assert asyncio.run(scenario()) == [fp.LEGACY, fp.MODERN]


async def health_of(client: httpx.AsyncClient, bridge: fp.FleetBridge) -> dict[str, Any]:
    return (await health(client, bridge))["swap"]

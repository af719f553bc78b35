"""Issue 16, acceptance 2 against real peers through the fleet bridge: a legacy mcp 1.29 server with its
mcp 2.3.0 twin as canary at weight 0.25. Callers (40 principals) are split by principal and stay on
their side; when the twin starts failing, the canary is rolled back to 0 within the window, every call
is answered, and the calls after that succeed on the old server; ``mcp-bridge canary`` re-arms it and
a config reload changes the weight without restarting anything."""

from __future__ import annotations

import asyncio
import itertools
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fleet_peers as fp
import httpx
import pytest

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream]

PRINCIPALS = 40
ROLLBACK = {"max_error_rate": 0.05, "min_requests": 20, "window": 300}
OLD, NEW = "legacy-everything", "modern-everything"
ERRORS: list[dict[str, Any]] = []


def servers(tmp: Path, old_url: str, weight: float) -> dict[str, dict[str, Any]]:
    return {"old": {"url": old_url, "era": fp.LEGACY, "canary": {"to": "new", "weight": weight}, "rollback": ROLLBACK},
            "new": {**fp.twin_cmd("--fail-file", str(tmp / "fail")), "era": fp.MODERN}}


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[tuple[fp.FleetBridge, Path, str]]:
    # The old server over Streamable HTTP: the bridge keeps one upstream session per caller credential,
    # which over stdio would mean one child process per principal (40 here).
    port = fp.peers.free_port()
    with fp.peers.running([fp.peers.legacy_python(), str(fp.VARIANT_SERVER), "http", "--port", str(port)], port):
        old_url = f"http://127.0.0.1:{port}/mcp"
        with fp.fleet_bridge(tmp_path, servers(tmp_path, old_url, 0.25)) as bridge:
            yield bridge, tmp_path, old_url


async def echo_as(client: httpx.AsyncClient, bridge: fp.FleetBridge, who: int) -> tuple[int, str]:
    """One echo call from principal ``who``: (who, the answering server's name, or "error")."""
    frame = await fp.rpc(client, bridge.url("old"), "tools/call", {"name": "echo", "arguments": {"text": f"p{who}"}},
                         headers={"Authorization": f"Bearer token-{who}"})
    if "error" in frame:
        ERRORS.append(frame["error"])
        return who, "error"
    assert frame["result"]["content"][0]["text"] == f"p{who}", frame
    return who, frame["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]


async def round_of(client: httpx.AsyncClient, bridge: fp.FleetBridge, n: int, concurrency: int = 16) -> list[tuple[int, str]]:
    gate = asyncio.Semaphore(concurrency)

    async def one(k: int) -> tuple[int, str]:
        async with gate:
            return await echo_as(client, bridge, k % PRINCIPALS)

    return list(await asyncio.gather(*(one(k) for k in range(n))))


async def canary_status(client: httpx.AsyncClient, bridge: fp.FleetBridge) -> dict[str, Any]:
    doc = (await client.get(f"{bridge.base}/fleet/status", headers=fp.ADMIN_HEADERS)).json()
    return next(s for s in doc["servers"] if s["name"] == "old")["canary"]


def test_canary_split_rollback_and_rearm_on_real_peers(fleet: tuple[fp.FleetBridge, Path, str]) -> None:
    bridge, tmp, old_url = fleet

    async def main() -> dict[str, Any]:
        async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=32)) as client:
            split = await round_of(client, bridge, 200)
            (tmp / "fail").write_text("now")
            failing: list[tuple[int, str]] = []
            for _ in itertools.count():
                failing += await round_of(client, bridge, 40)
                if (await canary_status(client, bridge))["state"] == "rolled back":
                    break
                assert len(failing) < 2000, "the failing canary was never rolled back"
            rolled = await canary_status(client, bridge)
            after = await round_of(client, bridge, 200)
            (tmp / "fail").unlink()
            cli = await asyncio.to_thread(fp.run_cli, "canary", "old", "--weight", "0.25", "--url", bridge.base)
            rearmed = await round_of(client, bridge, 80)
            bridge.write(servers(tmp, old_url, 0.5))
            reload = await asyncio.to_thread(fp.run_cli, "reload", "--url", bridge.base)
            final = await canary_status(client, bridge)
            return {"split": split, "failing": failing, "rolled": rolled, "after": after, "cli": cli, "rearmed": rearmed,
                    "reload": reload, "final": final}

    out = asyncio.run(main())
    sides: dict[int, set[str]] = defaultdict(set)
    for who, name in out["split"]:
        sides[who].add(name)
    assert all(len(s) == 1 for s in sides.values()) and set().union(*sides.values()) == {OLD, NEW}, (sides, ERRORS[:5])
    on_canary = {who for who, s in sides.items() if s == {NEW}}
    share = sum(1 for _, name in out["split"] if name == NEW) / len(out["split"])
    assert abs(share - 0.25) <= 0.05
    # failing: every call answered; errors only for the canary's principals, and only until the rollback
    errors = [who for who, name in out["failing"] if name == "error"]
    assert errors and set(errors) <= on_canary
    assert len(errors) <= ROLLBACK["min_requests"] + 16
    assert all(name in (OLD, "error") for _, name in out["failing"])
    assert out["rolled"]["weight"] == 0 and out["rolled"]["rollback_reason"].startswith("error rate")
    assert all(name == OLD for _, name in out["after"]), [x for x in out["after"] if x[1] != OLD][:5]
    print(f"\ncanary on real peers: share {share:.3f} ({len(on_canary)} of {PRINCIPALS} principals); "
          f"rolled back after {len(errors)} failed calls of {len(out['failing'])}; {len(out['after'])} later calls on the old server")
    # re-armed by the CLI (through /admin/canary): the same principals go back to the canary
    assert out["cli"].returncode == 0, out["cli"].stderr
    assert {who for who, name in out["rearmed"] if name == NEW} == on_canary
    assert out["reload"].returncode == 0, out["reload"].stderr
    assert '"staged": [\n    "old"\n  ]' in out["reload"].stdout and '"unchanged"' in out["reload"].stdout
    assert out["final"]["weight"] == 0.5 and out["final"]["configured_weight"] == 0.5 and out["final"]["state"] == "active"
    text = bridge.metrics()
    assert fp.metric(text, "mcp_bridge_canary_rollbacks_total", server="old", reason="errors") == 1
    assert bridge.health()["servers"]["old"]["generation"] == 1  # nothing was restarted

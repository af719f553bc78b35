"""Issue 16, acceptance 1: a legacy mcp 1.29 server and its migrated mcp 2.3.0 twin behind one fleet
bridge with ``shadow``. 500 real calls from 2026 and 2025 clients: every answer comes from the old
server; the side-effect-free ones are mirrored and compared (0 divergences on the faithful twin); a
deliberately drifted twin shows its divergences with diffs; a tool that is not read-only is never
mirrored (the twin's call record has none of it). /fleet/status validates against its schema."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import fleet_peers as fp
import httpx
import jsonschema
import pytest

from mcp_eras.bridge.fleet import web

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream, fp.needs_legacy_front]

CALLS_2026 = 350
SESSIONS_2025, CALLS_PER_SESSION = 10, 15
READ_ONLY = ("weather", "add")
MIRRORED_TOOLS = {"weather", "add", "echo"}  # echo by shadow_tools


def plan(i: int) -> tuple[str, dict[str, Any]]:
    """The i-th call: a mix of read-only tools, a shadow_tools tool, a side-effecting tool and reads."""
    kind = i % 7
    if kind == 0:
        return "tools/call", {"name": "add", "arguments": {"a": i, "b": 2}}
    if kind == 1:
        return "tools/call", {"name": "weather", "arguments": {"city": ("Paris", "Tokyo", "Oslo")[i % 3]}}
    if kind == 2:
        return "tools/call", {"name": "echo", "arguments": {"text": f"call {i}"}}
    if kind == 3:
        return "tools/call", {"name": "touch", "arguments": {"uri": "memo://readme"}}
    if kind == 4:
        return "resources/read", {"uri": ("memo://readme", "memo://config", "greeting://bob")[i % 3]}
    if kind == 5:
        return "prompts/get", {"name": "review", "arguments": {"code": f"x = {i}"}}
    return "tools/list", {}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[fp.FleetBridge, Path]]:
    tmp = tmp_path_factory.mktemp("shadow")
    hooks = ["--read-only", *READ_ONLY]
    # shadow_concurrency: no run reaches 1,000, so the counts do not depend on load (the cap: tests/inprocess). At the
    # default (16) a twin lagging behind the old server on a loaded machine had copies of old-b's calls skipped as busy.
    servers = {
        "old": {**fp.variant(*hooks, "--record", str(tmp / "old.jsonl")), "era": fp.LEGACY, "shadow": "twin",
                "shadow_tools": ["echo"], "shadow_concurrency": 1000, "shadow_timeout": 120},
        "twin": {**fp.twin_cmd(*hooks, "--record", str(tmp / "twin.jsonl")), "era": fp.MODERN},
        "old-b": {**fp.variant(*hooks), "era": fp.LEGACY, "shadow": "drifted", "shadow_concurrency": 1000, "shadow_timeout": 120},
        "drifted": {**fp.twin_cmd("--drift", "result", *hooks, "--record", str(tmp / "drifted.jsonl")), "era": fp.MODERN},
    }
    with fp.fleet_bridge(tmp, servers) as bridge:
        yield bridge, tmp


async def status(client: httpx.AsyncClient, bridge: fp.FleetBridge) -> dict[str, Any]:
    resp = await client.get(f"{bridge.base}/fleet/status", headers=fp.ADMIN_HEADERS)
    assert resp.status_code == 200, resp.text
    return resp.json()


def row(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in doc["servers"] if s["name"] == name)


async def settled(client: httpx.AsyncClient, bridge: fp.FleetBridge, name: str, expected: int) -> dict[str, Any]:
    """The server's shadow numbers once every expected copy is compared (or skipped)."""
    last: list[dict[str, Any]] = []

    async def done() -> dict[str, Any] | None:
        shadow = row(await status(client, bridge), name)["shadow"]
        last[:] = [shadow]
        finished = shadow["mirrored"] + sum(shadow["skipped"].values())
        return shadow if shadow["pending"] == 0 and finished >= expected else None

    try:
        return await fp.until(done, f"{expected} mirrored copies of {name} compared", bound=90)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; last: {last}") from None


async def warm_up(client: httpx.AsyncClient, bridge: fp.FleetBridge, name: str) -> dict[str, Any]:
    """One tools/list through the bridge, then wait until the bridge knows the read-only tools (until
    then, as it should, no tools/call is mirrored)."""
    frame = await fp.rpc(client, bridge.url(name), "tools/list")

    async def learned() -> bool:
        return set(row(await status(client, bridge), name)["shadow"]["read_only_tools"]) >= set(READ_ONLY)

    await fp.until(learned, f"{name}'s read-only tools learned", bound=60)
    return frame


def mirrorable(method: str, params: dict[str, Any], tools: set[str] | frozenset[str] = frozenset(MIRRORED_TOOLS)) -> bool:
    return method != "tools/call" or params["name"] in tools


def test_shadow_on_real_traffic_from_both_eras(fleet: tuple[fp.FleetBridge, Path]) -> None:
    bridge, tmp = fleet
    url = bridge.url("old")

    async def main() -> dict[str, Any]:
        answered_by: Counter[str] = Counter()
        sent: Counter[str] = Counter()
        numbers = itertools.count()
        limits = httpx.Limits(max_connections=32)
        async with httpx.AsyncClient(timeout=120, limits=limits) as client:
            frame = await warm_up(client, bridge, "old")
            answered_by[frame["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]] += 1
            sent["tools/list"] += 1
            next(numbers)  # call 0 was the warm-up

            async def modern_worker() -> None:
                while (i := next(numbers)) < CALLS_2026:
                    method, params = plan(i)
                    frame = await fp.rpc(client, url, method, params)
                    assert "result" in frame and not frame["result"].get("isError"), frame
                    info = (frame["result"].get("_meta") or {}).get("io.modelcontextprotocol/serverInfo") or {}
                    answered_by[info.get("name")] += 1
                    sent[params.get("name") or method] += 1
                    if params.get("name") == "add":
                        assert frame["result"]["content"][0]["text"] == str(i + 2)

            async def legacy_client(n: int) -> None:
                session = await fp.legacy_session(client, url, name=f"raw-2025-{n}")
                for k in range(CALLS_PER_SESSION):
                    i = 1000 + n * CALLS_PER_SESSION + k
                    method, params = plan(i)
                    _, frame = await fp.legacy_post(client, url, {"jsonrpc": "2.0", "id": k + 1, "method": method,
                                                                  "params": params}, session)
                    assert frame is not None and "result" in frame and not frame["result"].get("isError"), frame
                    sent[params.get("name") or method] += 1
                    if params.get("name") == "add":
                        assert frame["result"]["content"][0]["text"] == str(i + 2)

            await asyncio.gather(*(modern_worker() for _ in range(12)), *(legacy_client(n) for n in range(SESSIONS_2025)))
            expected = 1 + sum(1 for i in [*range(1, CALLS_2026), *(1000 + j for j in range(SESSIONS_2025 * CALLS_PER_SESSION))]
                               if mirrorable(*plan(i)))
            shadow = await settled(client, bridge, "old", expected)
            doc = await status(client, bridge)
            return {"answered_by": answered_by, "sent": sent, "expected": expected, "shadow": shadow, "status": doc}

    out = asyncio.run(main())
    total = sum(out["sent"].values())
    shadow = out["shadow"]
    print(f"\nshadow: {total} calls ({CALLS_2026} from 2026 clients, {SESSIONS_2025 * CALLS_PER_SESSION} from 2025 sessions), "
          f"{shadow['mirrored']} mirrored, {shadow['matched']} matched, {shadow['diverged']} diverged, skipped {shadow['skipped']}")
    assert total == CALLS_2026 + SESSIONS_2025 * CALLS_PER_SESSION == 500
    # every 2026 answer carries the old server's identity; every tool call reached the old server
    assert out["answered_by"] == Counter({"legacy-everything": CALLS_2026})
    old_calls = Counter(json.loads(line)["tool"] for line in (tmp / "old.jsonl").read_text().splitlines())
    assert old_calls == Counter({k: v for k, v in out["sent"].items() if k in {"add", "weather", "echo", "touch"}})
    # the side-effect-free ones were mirrored and matched; the side-effecting one never reached the twin
    assert shadow["mirrored"] == out["expected"] and shadow["skipped"] == {}, shadow
    assert shadow["diverged"] == 0 and shadow["matched"] == out["expected"] and shadow["match_rate"] == 1.0
    twin_calls = Counter(json.loads(line)["tool"] for line in (tmp / "twin.jsonl").read_text().splitlines())
    assert "touch" not in twin_calls and out["sent"]["touch"] > 0
    assert twin_calls == Counter({k: v for k, v in out["sent"].items() if k in MIRRORED_TOOLS}), twin_calls
    assert set(shadow["read_only_tools"]) == MIRRORED_TOOLS
    # the status document is what its schema says, and it counts the traffic by client era
    jsonschema.validate(out["status"], web.status_schema())
    mix = row(out["status"], "old")["requests_by_client_era"]
    # (each 2025 session also holds one subscriptions/listen of its own, counted when it ends)
    assert mix[fp.MODERN] == CALLS_2026 and SESSIONS_2025 * CALLS_PER_SESSION <= mix[fp.LEGACY] <= (SESSIONS_2025 + 1) * CALLS_PER_SESSION
    assert row(out["status"], "twin")["requests_by_client_era"]["shadow"] == out["expected"]
    hist = out["status"]["history"]
    assert sum(hist["client"][fp.MODERN]) >= CALLS_2026 and sum(hist["client"][fp.LEGACY]) >= SESSIONS_2025 * CALLS_PER_SESSION
    text = bridge.metrics()
    assert fp.metric(text, "mcp_bridge_shadow_mirrored_total", server="old", tool="touch") == 0
    assert fp.metric(text, "mcp_bridge_shadow_matched_total", server="old", method="tools/call", tool="add") == out["sent"]["add"]


def test_a_drifted_twin_shows_its_divergences(fleet: tuple[fp.FleetBridge, Path]) -> None:
    bridge, tmp = fleet
    url = bridge.url("old-b")
    calls = [plan(i) for i in range(42)]

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with httpx.AsyncClient(timeout=120) as client:
            await warm_up(client, bridge, "old-b")
            for method, params in calls:
                frame = await fp.rpc(client, url, method, params)
                assert "result" in frame, frame
                if params.get("name") == "add":  # the caller still gets the old server's (right) answer
                    assert frame["result"]["content"][0]["text"] == str(params["arguments"]["a"] + 2)
            shadow = await settled(client, bridge, "old-b", 1 + sum(1 for c in calls if mirrorable(*c, set(READ_ONLY))))
            resp = await client.get(f"{bridge.base}/fleet/divergences?limit=100", headers=fp.ADMIN_HEADERS)
            return shadow, resp.json()

    shadow, divergences = asyncio.run(main())
    adds = sum(1 for _, p in calls if p.get("name") == "add")
    assert shadow["diverged"] == adds > 0
    assert shadow["matched"] == shadow["mirrored"] - adds
    mine = [d for d in divergences["divergences"] if d["server"] == "old-b"]
    assert len(mine) == adds
    first = mine[-1]  # newest first: the last one is the first add (a=0, b=2)
    assert first["twin"] == "drifted" and first["method"] == "tools/call" and first["tool"] == "add"
    assert first["params"] == {"name": "add", "arguments": {"a": 0, "b": 2}}
    assert '-      "text": "2",' in first["diff"] and '+      "text": "3",' in first["diff"], first["diff"]
    drifted_calls = {json.loads(line)["tool"] for line in (tmp / "drifted.jsonl").read_text().splitlines()}
    assert "touch" not in drifted_calls

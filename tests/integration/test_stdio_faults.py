"""Issue #33, acceptance 2: a misbehaving stdio 2025 upstream costs only its own callers a clear, named error by
their deadline; the other upstreams of the same bridge and its ``/healthz`` are unaffected.

One fleet bridge serves a healthy 2025 server (mcp 1.x, ``samples/legacy``) beside one ``samples/faulty`` server per
fault: it dies on ``initialize``, crashes at start, floods ``ping`` requests without reading its stdin, never answers,
answers with wrong ids, writes garbage lines, answers 50 MB on one line. Each faulty server gets concurrent callers
and then one more; the healthy one is called in a loop all along, ``/healthz`` polled.

Outcomes, not timings, are asserted: every caller gets a JSON-RPC error naming what went wrong before its HTTP client
gives up (two request timeouts and a margin; before the fixes, callers of a server dying on ``initialize`` were
answered one ``initialize`` timeout apart, a flooding server's later callers never, and a 50 MB answer killed the
child so its session's good calls failed with "exited with status -9").

A server that floods past the bridge's bound of unread input (``process.MAX_UNSENT_BYTES``) and then reads none of it
is stopped once the window (its send wait and a grace) passes without a byte read: its callers are told why, the
supervisor respawns it, and a later caller is served by the new process (before the fix the process stayed, every
later caller of it failing until its session idled out).
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

import peers

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fleet"))
import fleet_peers as fp  # noqa: E402

pytestmark = [pytest.mark.legacy_peer]

FAULTY = peers.SAMPLES / "faulty" / "faulty_server.py"
REQUEST_TIMEOUT = 8.0
CLIENT_TIMEOUT = 2 * REQUEST_TIMEOUT + 10
"""A caller's patience: past it the bridge missed the caller's deadline (a hang guard, generous for a loaded host)."""
CALLERS = 3

EXPECTED: dict[str, tuple[str, ...]] = {
    "die-on-init": ("exited with status 4", "out of licences, exiting"),
    "crash-at-start": ("exited with status 3", "faulty: start-up line 1", "configuration missing, exiting"),
    "flood": ("did not answer in time", "bytes of its input not read"),
    "silent": ("did not answer in time",),
    "wrong-ids": ("did not answer in time", "answers to no request in flight"),
    "garbage": ("did not answer in time", "not JSON-RPC"),
    "big": ("frame limit", "max_line_bytes = 16777216"),
}


def faulty(mode: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAULTY), mode]}


async def call(client: httpx.AsyncClient, url: str, tool: str) -> dict[str, Any]:
    """One ``tools/call``: its JSON-RPC error, or {"ok": text}; an HTTP failure (no answer in time) is raised."""
    frame = await fp.rpc(client, url, "tools/call", {"name": tool, "arguments": {"text": "hello"}})
    if "error" in frame:
        return frame["error"]
    return {"ok": frame["result"]["content"][0]["text"]}


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Any:
    servers = {"good": {"command": peers.legacy_python(), "args": [str(fp.LEGACY_SERVER), "stdio"]}}
    servers |= {mode: faulty(mode) for mode in EXPECTED}
    marker = tmp_path_factory.mktemp("flood-once") / "flooded"
    servers["flood-once"] = {"command": sys.executable, "args": [str(FAULTY), "flood-once", "--marker", str(marker)]}
    with fp.fleet_bridge(tmp_path_factory.mktemp("faults"), servers, {"request_timeout": REQUEST_TIMEOUT}) as b:
        yield b


async def run_faults(bridge: fp.FleetBridge) -> dict[str, Any]:
    outcomes: dict[str, list[Any]] = {mode: [] for mode in EXPECTED}
    good: Counter[str] = Counter()
    health: Counter[Any] = Counter()
    stop = asyncio.Event()
    async with httpx.AsyncClient(timeout=CLIENT_TIMEOUT) as client:
        assert await fp.echo(client, bridge.url("good"), "warm") == "warm"

        async def caller(mode: str, tool: str) -> None:
            try:
                outcomes[mode].append((tool, await call(client, bridge.url(mode), tool)))
            except httpx.HTTPError as exc:  # the bridge missed the caller's deadline
                outcomes[mode].append((tool, f"no answer: {exc!r}"))

        async def callers(mode: str) -> None:
            tool = "big" if mode == "big" else "work"
            extra = [caller(mode, "echo")] if mode == "big" else []  # a good call beside the oversized answers
            await asyncio.gather(*(caller(mode, tool) for _ in range(CALLERS)), *extra)
            await caller(mode, tool)  # and one more once the fault has happened
            if mode == "big":
                await caller(mode, "echo")

        async def good_loop() -> None:
            n = 0
            while not stop.is_set():
                try:
                    assert await fp.echo(client, bridge.url("good"), f"g{n}") == f"g{n}"
                    good["ok"] += 1
                except Exception as exc:  # noqa: BLE001 - counted, then asserted on
                    good[f"failed: {exc!r}"] += 1
                n += 1
                await asyncio.sleep(0.05)

        async def health_loop() -> None:
            while not stop.is_set():
                try:
                    resp = await client.get(f"{bridge.base}/healthz", timeout=10)
                    health[resp.status_code] += 1
                except httpx.HTTPError as exc:
                    health[repr(exc)] += 1
                await asyncio.sleep(0.25)

        background = [asyncio.create_task(good_loop()), asyncio.create_task(health_loop())]
        try:
            await asyncio.gather(*(callers(mode) for mode in EXPECTED))
        finally:
            stop.set()
            await asyncio.gather(*background)
        assert await fp.echo(client, bridge.url("good"), "after") == "after"
    return {"outcomes": outcomes, "good": good, "health": health}


def test_each_fault_costs_only_its_own_callers_a_named_error(bridge: fp.FleetBridge) -> None:
    report = asyncio.run(run_faults(bridge))
    problems: list[str] = []
    for mode, expected in EXPECTED.items():
        for tool, outcome in report["outcomes"][mode]:
            if tool == "echo":  # the good call on the server whose other answers are too big
                if outcome != {"ok": "hello"}:
                    problems.append(f"{mode} echo: {outcome!r}")
                continue
            message = outcome.get("message", "") if isinstance(outcome, dict) else str(outcome)
            if not isinstance(outcome, dict) or outcome.get("code") != -32603 or not all(e in message for e in expected):
                problems.append(f"{mode} {tool}: {outcome!r}")
        assert len(report["outcomes"][mode]) == CALLERS + 1 + (2 if mode == "big" else 0)
    assert not problems, "\n".join(problems)
    assert set(report["good"]) == {"ok"} and report["good"]["ok"] > 0, report["good"]
    assert set(report["health"]) == {200}, report["health"]


RESTARTED = "restarted: it read none of its input for"
WEDGED = (("did not answer in time", "bytes of its input not read"), ("is not reading its input",), (RESTARTED,))
"""What a caller of the flooding process may be told: timed out before it was stopped, refused while it was not
reading, or in flight when it was stopped (the reason)."""
DONE = {"ok": "done"}


async def run_flood_once(bridge: fp.FleetBridge) -> dict[str, Any]:
    url = bridge.url("flood-once")
    async with httpx.AsyncClient(timeout=CLIENT_TIMEOUT) as client:
        flooding: list[int] = []
        outcomes: list[Any] = []
        calls: list[asyncio.Task[None]] = []

        async def caller() -> None:
            outcomes.append(await call(client, url, "work"))

        # The first call makes the process flood; one more caller a second until one is served by the respawned
        # process (which behaves): some time out, some are refused, those in flight when it is stopped are told why.
        calls.append(asyncio.create_task(caller()))
        while DONE not in outcomes and len(calls) < 60:
            if not flooding:  # the server starts with its first call
                flooding.extend((await client.get(f"{bridge.base}/servers/flood-once/healthz", timeout=10)).json()["pids"])
            await asyncio.sleep(1.0)
            calls.append(asyncio.create_task(caller()))
        await asyncio.gather(*calls)
        after = await call(client, url, "work")
        health = (await client.get(f"{bridge.base}/servers/flood-once/healthz", timeout=10)).json()
        return {"flooding": flooding, "outcomes": outcomes, "after": after, "health": health}


def test_a_flooding_process_that_reads_none_of_its_input_is_restarted_and_serves_again(bridge: fp.FleetBridge) -> None:
    report = asyncio.run(run_flood_once(bridge))
    stuck = [o for o in report["outcomes"] if o != DONE]
    problems = [repr(o) for o in stuck if o.get("code") != -32603 or not any(
        all(e in o.get("message", "") for e in expected) for expected in WEDGED)]
    assert not problems, "\n".join(problems)
    told = [o["message"] for o in stuck if RESTARTED in o["message"]]
    assert told, f"no caller was told why the process was restarted: {stuck!r}"
    assert all("bytes unread" in m for m in told), told
    assert report["after"] == DONE, report["after"]
    health = report["health"]
    assert health["restarts"] >= 1, health
    assert report["flooding"] and not set(report["flooding"]) & set(health["pids"]), (report["flooding"], health)

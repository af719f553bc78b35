"""Cold start of the stdio front: time to the first answer, bridged vs direct, and how many server children start.

Each round starts a client process's view of one stdio command from nothing and times, from the spawn:
``first`` (the answer to the first request) and ``list`` (``tools/list`` answered: the first useful answer).
Legs, interleaved round by round so machine load hits them alike:

    direct       the server itself, a 2025 client (initialize, notifications/initialized, tools/list)
    bridge-2026  ``mcp-bridge serve --stdio -- SERVER``, a 2026 client (server/discover, then tools/list)
    bridge-2025  the same bridge, a 2025 client (initialize, notifications/initialized, tools/list)

Every server start goes through ``bench/spawn_counter.py``, so each bridged round also reports the number of
children the bridge started. The client is a raw newline-JSON client (no SDK), the same on every leg.

    cold_start.py [--rounds N] [--json] [-- SERVER ...]     (default SERVER: .venvs/published/bin/mcp-server-time)

Target (#17): the bridge's first answer within 1.5x of the direct one, and one child.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
COUNTER = str(ROOT / "bench" / "spawn_counter.py")
DEFAULT_SERVER = [str(ROOT / ".venvs" / "published" / "bin" / "mcp-server-time")]
LEGACY, MODERN = "2025-11-25", "2026-07-28"
INFO = {"name": "cold-start-bench", "version": "1"}
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": INFO}
TIMEOUT = 120.0


def frame(rid: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if rid is not None:
        msg["id"] = rid
    if params is not None:
        msg["params"] = params
    return (json.dumps(msg) + "\n").encode()


async def answer(proc: asyncio.subprocess.Process, rid: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        line = await proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the command exited before answering request {rid}")
        msg = json.loads(line)
        if msg.get("id") == rid and ("result" in msg or "error" in msg):
            if "error" in msg:
                raise RuntimeError(f"request {rid} failed: {msg['error']}")
            return msg


async def one_round(command: list[str], era: str) -> tuple[float, float]:
    """Spawn ``command``, talk to it as a client of ``era``; (seconds to the first answer, to tools/list)."""
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(*command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.DEVNULL, limit=64 * 1024 * 1024)
    assert proc.stdin is not None
    try:
        async with asyncio.timeout(TIMEOUT):
            if era == LEGACY:
                proc.stdin.write(frame(1, "initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": INFO}))
                await answer(proc, 1)
                first = time.perf_counter() - started
                proc.stdin.write(frame(None, "notifications/initialized") + frame(2, "tools/list"))
            else:
                proc.stdin.write(frame(1, "server/discover", {"_meta": META}))
                await answer(proc, 1)
                first = time.perf_counter() - started
                proc.stdin.write(frame(2, "tools/list", {"_meta": META}))
            await answer(proc, 2)
            return first, time.perf_counter() - started
    finally:
        proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def children(log: str) -> int:
    """Server starts logged by ``spawn_counter.py``."""
    with open(log, encoding="utf-8") as lines:
        return sum(1 for _ in lines)


async def run(server: list[str], rounds: int) -> dict[str, Any]:
    legs: dict[str, dict[str, list[float]]] = {leg: {"first": [], "list": [], "children": []}
                                               for leg in ("direct", "bridge-2026", "bridge-2025")}
    bridge = [sys.executable, "-m", "mcp_eras.bridge", "serve", "--stdio", "--log-level", "error", "--"]
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(rounds):
            for leg, data in legs.items():
                log = os.path.join(tmp, f"{leg}-{n}.log")
                counted = [sys.executable, COUNTER, log, "--", *server]
                command = counted if leg == "direct" else [*bridge, *counted]
                first, listed = await one_round(command, LEGACY if leg != "bridge-2026" else MODERN)
                data["first"].append(first)
                data["list"].append(listed)
                data["children"].append(children(log))
    direct = statistics.median(legs["direct"]["first"])
    out: dict[str, Any] = {"server": server, "rounds": rounds, "legs": {}}
    for leg, data in legs.items():
        first = statistics.median(data["first"])
        out["legs"][leg] = {"first_ms": round(first * 1000), "list_ms": round(statistics.median(data["list"]) * 1000),
                            "first_vs_direct": round(first / direct, 2), "children": sorted(set(data["children"]))}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("server", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    server = args.server[1:] if args.server[:1] == ["--"] else args.server
    report = asyncio.run(run(server or DEFAULT_SERVER, args.rounds))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"server: {' '.join(report['server'])} ({report['rounds']} rounds, medians)")
    print(f"{'leg':<12} {'first ms':>9} {'list ms':>8} {'x direct':>9} children")
    for leg, r in report["legs"].items():
        print(f"{leg:<12} {r['first_ms']:>9} {r['list_ms']:>8} {r['first_vs_direct']:>9} {r['children']}")


if __name__ == "__main__":
    main()

"""Scale-out cost (#11, #33 acceptance 6): throughput of the upstream alone, of 1 and of 3 bridge instances behind
HAProxy, and the added p50 of the Redis hop.

    .venv/bin/python bench/scale_bench.py [--requests 3000] [--concurrency 32] [--load-procs 1]
                                          [--upstream fast|sdk] [--upstream-workers N] [--hop-requests 500] [--json]

Upstream: ``fast`` (default) is bench/fast_upstream.py, a 2026-07-28 server in plain asyncio with
``--upstream-workers`` processes on one port (default: one per core), so that it is not what limits the bridge;
``sdk`` is samples/modern/everything_server.py (the mcp SDK, one process). The first leg loads the upstream
straight (no bridge, no HAProxy): its ceiling with this load generator, the bound on every other leg.
Throughput legs (plain 2026-07-28 ``tools/call add``, ``--concurrency`` clients spread over ``--load-procs``
processes, through HAProxy round-robin): one instance with the in-memory store; one instance with the Redis
store; three instances with the Redis store. Plain calls never touch the store, so the two single-instance legs
should match; "3 vs 1" is what a second and third process buy. On a host with cores to spare for the upstream,
the load generator and HAProxy, N instances should approach N times one instance until the upstream's ceiling;
on a machine with 2 shared cores every process competes for the same cores and the ratio says little.
Redis hop: a 2025-11-25 session opened on instance A; sequential ``tools/call add`` sent to A itself
(local) and to instance B (B reads the session record and A's registry entry from Redis and relays the
request to A); the difference of the p50s is the per-call cost of the hop, next to the p50 of one
store read from this process. Needs redis-server and haproxy (``bash .ci/bootstrap.sh``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "scale")]
import scale_peers  # noqa: E402

from mcp_eras.bridge.store.redis_store import RedisStore  # noqa: E402

import peers  # noqa: E402  (the test helpers that run real peers)

ADD = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}, "_meta": {
    "io.modelcontextprotocol/protocolVersion": scale_peers.MODERN, "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "scale-bench", "version": "1"}}}}
HEADERS = {"accept": scale_peers.ACCEPT, "mcp-protocol-version": scale_peers.MODERN, "mcp-method": "tools/call", "mcp-name": "add"}


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _timed_load(url: str, requests: int, concurrency: int) -> tuple[list[float], float, float]:
    """Latencies of ``requests`` calls over ``concurrency`` connections, and the wall-clock start and end."""
    latencies: list[float] = []
    counter = iter(range(requests))

    async def worker() -> None:
        async with httpx.AsyncClient(timeout=60) as http:
            for rid in counter:
                started = time.perf_counter()
                resp = await http.post(url, json={**ADD, "id": rid}, headers=HEADERS)
                latencies.append(time.perf_counter() - started)
                assert resp.status_code == 200 and resp.json()["result"]["content"][0]["text"] == "5", resp.text

    async with httpx.AsyncClient(timeout=60) as http:  # warm-up
        for rid in range(50):
            await http.post(url, json={**ADD, "id": rid}, headers=HEADERS)
    started = time.time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return latencies, started, time.time()


def _load_proc(url: str, requests: int, concurrency: int) -> tuple[list[float], float, float]:
    return asyncio.run(_timed_load(url, requests, concurrency))


def load(url: str, requests: int, concurrency: int, procs: int = 1) -> dict[str, float]:
    """Throughput and latency of the load split over ``procs`` client processes (one: in this process)."""
    if procs <= 1:
        runs = [_load_proc(url, requests, concurrency)]
    else:
        with ProcessPoolExecutor(procs) as pool:
            runs = list(pool.map(_load_proc, [url] * procs, [requests // procs] * procs,
                                 [max(1, concurrency // procs)] * procs))
    latencies = [x for run in runs for x in run[0]]
    wall = max(run[2] for run in runs) - min(run[1] for run in runs)
    return {"req_s": round(len(latencies) / wall, 1), "p50_ms": round(pct(latencies, 0.5) * 1000, 2),
            "p99_ms": round(pct(latencies, 0.99) * 1000, 2)}


def hop(cluster: scale_peers.Cluster, requests: int) -> dict[str, float]:
    a, b = cluster.instances[0], cluster.instances[1]
    session = scale_peers.LegacySession(a.url)
    session.open()
    timings: dict[str, list[float]] = {"local": [], "relayed": []}
    for i in range(requests * 2):
        which, inst = ("local", a) if i % 2 == 0 else ("relayed", b)
        started = time.perf_counter()
        answer = session.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, url=inst.url)
        timings[which].append(time.perf_counter() - started)
        assert answer["result"]["content"][0]["text"] == "3", answer
    local, relayed = statistics.median(timings["local"]), statistics.median(timings["relayed"])
    return {"local_p50_ms": round(local * 1000, 2), "relayed_p50_ms": round(relayed * 1000, 2),
            "added_p50_ms": round((relayed - local) * 1000, 2)}


async def store_read_p50(url: str, n: int = 1000) -> float:
    store = RedisStore(url)
    await store.create_session("bench", {"machine": {}}, 60_000, owner="a")
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        await store.session("bench", ttl_ms=60_000)
        samples.append(time.perf_counter() - started)
    await store.aclose()
    return round(statistics.median(samples) * 1000, 3)


def upstream_cmd(kind: str, port: int, workers: int) -> list[str]:
    if kind == "sdk":
        return [peers.MODERN_PYTHON, str(peers.SAMPLES / "modern" / "everything_server.py"), "http", "--port", str(port)]
    return [peers.MODERN_PYTHON, str(ROOT / "bench" / "fast_upstream.py"), "--port", str(port), "--workers", str(workers)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--load-procs", type=int, default=1, help="client processes sharing the load")
    parser.add_argument("--upstream", choices=("fast", "sdk"), default="fast")
    parser.add_argument("--upstream-workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--hop-requests", type=int, default=500)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out: dict[str, object] = {"host": {"cores": os.cpu_count(), "upstream": args.upstream,
                                       "upstream_workers": args.upstream_workers if args.upstream == "fast" else 1,
                                       "load_procs": args.load_procs, "concurrency": args.concurrency}}
    port = peers.free_port()
    upstream_url = f"http://127.0.0.1:{port}/mcp"
    upstream = ["--upstream", upstream_url, "--upstream-era", "2026-07-28"]
    with ExitStack() as stack:
        stack.enter_context(peers.running(upstream_cmd(args.upstream, port, args.upstream_workers), port))
        out["upstream alone (no bridge)"] = load(upstream_url, args.requests, args.concurrency, args.load_procs)
        redis_url = stack.enter_context(scale_peers.redis_server())
        for label, store, n in (("1 instance, memory", "memory", 1), ("1 instance, redis", redis_url, 1),
                                ("3 instances, redis", redis_url, 3)):
            with scale_peers.cluster(store, upstream, n) as c:
                out[label] = load(c.url, args.requests, args.concurrency, args.load_procs)
                if n == 3 and args.hop_requests:
                    out["redis hop (2025 session, sequential)"] = hop(c, args.hop_requests)
        out["one store read p50 ms"] = asyncio.run(store_read_p50(redis_url))
    one, three, alone = (out[k]["req_s"] for k in ("1 instance, redis", "3 instances, redis", "upstream alone (no bridge)"))  # type: ignore[index]
    out["ratios"] = {"3 vs 1 instance": round(three / one, 2), "1 instance vs upstream alone": round(one / alone, 2),
                     "3 instances vs upstream alone": round(three / alone, 2)}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for key, value in out.items():
        print(f"{key:40s} {value}")


if __name__ == "__main__":
    main()

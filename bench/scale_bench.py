"""Scale-out cost (#11): throughput of 1 vs 3 bridge instances behind HAProxy, and the added p50 of the
Redis hop.

    .venv/bin/python bench/scale_bench.py [--requests 3000] [--concurrency 32] [--hop-requests 500] [--json]

Upstream: samples/modern/everything_server.py on Streamable HTTP (one process for every variant).
Throughput legs (plain 2026-07-28 ``tools/call add``, ``--concurrency`` clients, through HAProxy
round-robin): one instance with the in-memory store; one instance with the Redis store; three
instances with the Redis store. Plain calls never touch the store, so the first two should match; the
third shows what a second and third process buy on this machine (on 2 shared cores: little).
Redis hop: a 2025-11-25 session opened on instance A; sequential ``tools/call add`` sent to A itself
(local) and to instance B (B reads the session record and A's registry entry from Redis and relays the
request to A); the difference of the p50s is the per-call cost of the hop, next to the p50 of one
store read from this process. Needs redis-server and haproxy (``bash .ci/bootstrap.sh``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
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


async def load(url: str, requests: int, concurrency: int) -> dict[str, float]:
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
    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - started
    return {"req_s": round(requests / wall, 1), "p50_ms": round(pct(latencies, 0.5) * 1000, 2),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--hop-requests", type=int, default=500)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out: dict[str, object] = {}
    port = peers.free_port()
    server = [peers.MODERN_PYTHON, str(peers.SAMPLES / "modern" / "everything_server.py"), "http", "--port", str(port)]
    upstream = ["--upstream", f"http://127.0.0.1:{port}/mcp", "--upstream-era", "2026-07-28"]
    with ExitStack() as stack:
        stack.enter_context(peers.running(server, port))
        redis_url = stack.enter_context(scale_peers.redis_server())
        for label, store, n in (("1 instance, memory", "memory", 1), ("1 instance, redis", redis_url, 1),
                                ("3 instances, redis", redis_url, 3)):
            with scale_peers.cluster(store, upstream, n) as c:
                out[label] = asyncio.run(load(c.url, args.requests, args.concurrency))
                if n == 3:
                    out["redis hop (2025 session, sequential)"] = hop(c, args.hop_requests)
        out["one store read p50 ms"] = asyncio.run(store_read_p50(redis_url))
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for key, value in out.items():
        print(f"{key:40s} {value}")


if __name__ == "__main__":
    main()

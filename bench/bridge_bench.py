"""mcp-bridge overhead: added latency (p50/p99) and throughput of a trivial ``tools/call`` through the
bridge versus a direct connection to the same server, at concurrency 1 and 64, printed as ratios.

    .venv/bin/python bench/bridge_bench.py [--requests 2000] [--concurrency 1 64] [--json]

Legs (all Streamable HTTP on loopback, one load generator for every leg so client cost is equal):
  A  2026 client -> bridge -> legacy server (mcp 1.29 FastMCP)   vs  2025 client -> same legacy server
  B  2025 client -> bridge (2025 front) -> mcp 2.3.0 server on the 2026 wire
                                                                  vs  2025 client -> same dual-era server
  A-stdio  2026 client -> bridge -> legacy server as a stdio child
           vs  2025 client -> mcp-proxy 0.13.0 (a peer tool: stdio server exposed over Streamable HTTP,
               no era translation) -> the same stdio server; installed under .cache/ on first use

Run it on an otherwise idle machine; it starts and stops its own servers (loopback only).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
LEGACY_PY = os.environ.get("MCP_ERAS_LEGACY_PYTHON") or str(ROOT / ".venvs" / "mcp1" / "bin" / "python")
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}
ACCEPT = "application/json, text/event-stream"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running(cmd: list[str], port: int) -> Iterator[None]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(f"{cmd[:3]} exited early") from None
                time.sleep(0.05)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def parse_body(resp: httpx.Response) -> dict:
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        frames = [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return frames[-1]
    return resp.json()


Caller = Callable[[httpx.AsyncClient, int], Awaitable[None]]


async def legacy_session(client: httpx.AsyncClient, url: str) -> Caller:
    """A 2025 session (initialize + initialized) and a caller that sends tools/call on it."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
    resp = await client.post(url, json=init, headers={"Accept": ACCEPT})
    sid = resp.headers.get("mcp-session-id")
    version = parse_body(resp)["result"]["protocolVersion"]
    headers = {"Accept": ACCEPT, "MCP-Protocol-Version": version}
    if sid:
        headers["Mcp-Session-Id"] = sid
    await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)

    ids = itertools.count(1)  # 2025: ids are never reused within a session

    async def call(c: httpx.AsyncClient, i: int) -> None:
        body = {"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": {"name": "add", "arguments": {"a": i, "b": 1}}}
        r = await c.post(url, json=body, headers=headers)
        assert parse_body(r)["result"]["content"][0]["text"] == str(i + 1)

    return call


async def modern_session(client: httpx.AsyncClient, url: str) -> Caller:
    """2026 needs no session: the caller just stamps ``_meta`` and the routing headers on every request."""
    headers = {"Accept": ACCEPT, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"}

    async def call(c: httpx.AsyncClient, i: int) -> None:
        body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": i, "b": 1}, "_meta": META}}
        r = await c.post(url, json=body, headers=headers)
        assert parse_body(r)["result"]["content"][0]["text"] == str(i + 1)

    return call


async def measure(make: Callable[[httpx.AsyncClient], Awaitable[Caller]], requests: int, concurrency: int) -> dict:
    limits = httpx.Limits(max_connections=concurrency + 4, max_keepalive_connections=concurrency + 4)
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        call = await make(client)
        for i in range(min(50, requests)):  # warm-up: connections, caches, JIT-free but lazy imports
            await call(client, i)
        latencies: list[float] = []
        counter = iter(range(requests))

        async def worker() -> None:
            for i in counter:
                t0 = time.perf_counter()
                await call(client, i)
                latencies.append(time.perf_counter() - t0)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - start
    latencies.sort()
    return {
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "rps": requests / wall,
    }


def run_leg(make: Callable[[httpx.AsyncClient], Awaitable[Caller]], requests: int, concurrency: int) -> dict:
    return asyncio.run(measure(make, requests, concurrency))


def peer_mcp_proxy() -> str | None:
    """PyPI mcp-proxy 0.13.0 in a throwaway venv under .cache/ (None when it cannot be installed)."""
    venv = ROOT / ".cache" / "peer-mcp-proxy"
    exe = venv / "bin" / "mcp-proxy"
    if not exe.exists():
        try:
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "mcp-proxy==0.13.0"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (subprocess.CalledProcessError, OSError):
            print("bench: mcp-proxy could not be installed; skipping the peer-tool baseline", file=sys.stderr)
            return None
    return str(exe)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--legs", nargs="+", default=["A", "B", "A-stdio"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, dict] = {}
    legacy_server = [LEGACY_PY, str(ROOT / "samples" / "legacy" / "everything_server.py")]
    modern_server = [PY, str(ROOT / "samples" / "modern" / "everything_server.py")]
    bridge = [PY, "-m", "bridge", "serve", "--log-level", "error"]

    for c in args.concurrency:
        if "A" in args.legs:
            up, br = free_port(), free_port()
            upstream = f"http://127.0.0.1:{up}/mcp"
            with running([*legacy_server, "http", "--port", str(up)], up), \
                    running([*bridge, "--listen", f"127.0.0.1:{br}", "--upstream-era", "2025-11-25", "--upstream", upstream], br):
                direct = run_leg(partial(legacy_session, url=upstream), args.requests, c)
                via = run_leg(partial(modern_session, url=f"http://127.0.0.1:{br}/mcp"), args.requests, c)
            results[f"A c={c}"] = {"direct": direct, "bridge": via}
        if "B" in args.legs:
            up, br = free_port(), free_port()
            upstream = f"http://127.0.0.1:{up}/mcp"
            with running([*modern_server, "http", "--port", str(up)], up), \
                    running([*bridge, "--listen", f"127.0.0.1:{br}", "--front-era", "2025-11-25", "--upstream-era", "2026-07-28",
                             "--upstream", upstream], br):
                direct = run_leg(partial(legacy_session, url=upstream), args.requests, c)
                via = run_leg(partial(legacy_session, url=f"http://127.0.0.1:{br}/mcp"), args.requests, c)
            results[f"B c={c}"] = {"direct": direct, "bridge": via}
        if "A-stdio" in args.legs:
            br = free_port()
            with running([*bridge, "--listen", f"127.0.0.1:{br}", "--upstream-era", "2025-11-25", "--", *legacy_server], br):
                via = run_leg(partial(modern_session, url=f"http://127.0.0.1:{br}/mcp"), args.requests, c)
            peer = None
            proxy = peer_mcp_proxy()
            if proxy is not None:
                pp = free_port()
                with running([proxy, "--host", "127.0.0.1", "--port", str(pp), "--", *legacy_server], pp):
                    peer = run_leg(partial(legacy_session, url=f"http://127.0.0.1:{pp}/mcp"), args.requests, c)
            results[f"A-stdio c={c}"] = {"bridge": via, **({"direct": peer, "baseline": "mcp-proxy"} if peer else {})}

    if args.json:
        print(json.dumps(results, indent=2))
        return
    print("direct = the same server without the bridge (A-stdio: through the peer tool mcp-proxy instead)")
    print(f"{'leg':<14} {'direct p50':>11} {'bridge p50':>11} {'added p50':>10} {'direct p99':>11} {'bridge p99':>11}"
          f" {'direct rps':>11} {'bridge rps':>11} {'rps ratio':>9}")
    for leg, r in results.items():
        b = r["bridge"]
        d = r.get("direct")
        if d:
            print(f"{leg:<14} {d['p50_ms']:>9.2f}ms {b['p50_ms']:>9.2f}ms {b['p50_ms'] - d['p50_ms']:>8.2f}ms {d['p99_ms']:>9.2f}ms"
                  f" {b['p99_ms']:>9.2f}ms {d['rps']:>11.0f} {b['rps']:>11.0f} {b['rps'] / d['rps']:>8.2f}x")
        else:
            print(f"{leg:<14} {'-':>11} {b['p50_ms']:>9.2f}ms {'-':>10} {'-':>11} {b['p99_ms']:>9.2f}ms {'-':>11} {b['rps']:>11.0f}")


if __name__ == "__main__":
    main()

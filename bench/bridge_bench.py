"""mcp-bridge per-call cost against a direct connection and a null relay, in one interleaved run.

    .venv/bin/python bench/bridge_bench.py [--requests 1000] [--rounds 5] [--concurrency 1 64]
                                           [--legs A-stdio A-http B] [--peer] [--client httpx|lean] [--idle-latency US] [--json]

Legs (loopback; one load generator for every variant, so client cost is equal within a leg; its HTTP client is httpx,
or with ``--client lean`` the much lighter ``bench/lean_client.py``, under which c=64 measures the proxy rather than
httpx's pool):
  A-stdio  2026 client -> proxy -> legacy server (mcp 1.29 FastMCP) as a stdio child
           direct = the load generator drives the same stdio server over its pipes (2025 frames)
  A-http   2026 client -> proxy -> the same legacy server on Streamable HTTP
           direct = a 2025 client session straight to that server
  B        2025 client -> proxy -> mcp 2.3.0 server on the 2026 wire (Streamable HTTP)
           direct = a 2025 client session straight to that (dual-era) server
Variants: direct, null (bench/null_relay.py: parse, rewrite id, forward), bridge; with --baseline DIR also
"before" (another tree's bridge: the same run measures before and after); with --alt NAME=DIR[,VAR=VALUE...] (repeatable)
more trees under their own names (e.g. copies with one fast path cut off); with --nofast also the bridge
without mcp-eras[fast] (MCP_BRIDGE_FAST=0); with --peer the
A-stdio leg adds PyPI mcp-proxy 0.13.0 (a peer tool, no era translation; installed under .cache/).

Every variant's processes start once per leg; then ``--rounds`` rounds run each (variant,
concurrency) cell for requests/rounds calls in rotating order, so drift on a shared machine hits all
variants alike. Reported per cell: p50/p99 latency, req/s, the proxy's CPU ms per call (the run time of the proxy
process's threads from /proc schedstat, in ns; children excluded) and its peak RSS (VmHWM); on the HTTP legs also the
upstream server's CPU ms per call and the share of the wall time it ran (at c=1 a direct client keeps it busy almost all
the time, so what a proxy adds to a call shows as server idle time). Run on an idle machine.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lean_client import LeanClient  # noqa: E402  (bench/ is a folder of scripts, not a package)
from null_relay import StdioUpstream  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
BRIDGE = str(Path(PY).with_name("mcp-bridge"))
LEGACY_PY = os.environ.get("MCP_ERAS_LEGACY_PYTHON") or str(ROOT / ".venvs" / "mcp1" / "bin" / "python")
RELAY = [PY, str(ROOT / "bench" / "null_relay.py")]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}
ACCEPT = "application/json, text/event-stream"
TICK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, limit: float) -> bool:
    """Until something listens on ``port`` (True) or ``limit`` seconds pass (False); ``proc`` exiting first raises."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"{proc.args[:4]!r} exited early") from None
            time.sleep(0.05)
    return False


@contextmanager
def running(cmd: list[str], port: int | None, env: dict[str, str] | None = None, cwd: str | None = None) -> Iterator[subprocess.Popen]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})}
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    try:
        if port is not None:
            wait_port(port, proc, 60)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def cpu_seconds(pid: int) -> float:
    """CPU time of the process's live threads in ns (the first field of each ``/proc/<pid>/task/<tid>/schedstat``):
    utime and stime in ``stat`` count 10 ms ticks, a tenth of a round's CPU when a cell's round costs 100 ms. Without
    schedstat (a kernel built without it), those ticks."""
    try:
        return sum(int((task / "schedstat").read_text().split()[0]) for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9
    except (OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15 of stat(5))


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def parse_body(resp: httpx.Response) -> dict:
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        frames = [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return [f for f in frames if "method" not in f][-1]
    return resp.json()


Caller = Callable[[int], Awaitable[None]]


def check(answer: dict, i: int) -> None:
    assert answer["result"]["content"][0]["text"] == str(i + 1), answer


async def legacy_http(client: httpx.AsyncClient, url: str) -> Caller:
    """A 2025 session (initialize + initialized) and a caller that sends tools/call on it."""
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}}
    resp = await client.post(url, json=init, headers={"Accept": ACCEPT})
    sid = resp.headers.get("mcp-session-id")
    headers = {"Accept": ACCEPT, "MCP-Protocol-Version": parse_body(resp)["result"]["protocolVersion"]}
    if sid:
        headers["Mcp-Session-Id"] = sid
    await client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    ids = itertools.count(1)  # 2025: ids are never reused within a session

    async def call(i: int) -> None:
        body = {"jsonrpc": "2.0", "id": next(ids), "method": "tools/call", "params": {"name": "add", "arguments": {"a": i, "b": 1}}}
        check(parse_body(await client.post(url, json=body, headers=headers)), i)

    return call


async def modern_http(client: httpx.AsyncClient, url: str) -> Caller:
    """2026 needs no session: every request carries ``_meta`` and the routing headers."""
    headers = {"Accept": ACCEPT, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "add"}
    ids = itertools.count(1)

    async def call(i: int) -> None:
        body = {"jsonrpc": "2.0", "id": next(ids), "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": i, "b": 1}, "_meta": META}}
        check(parse_body(await client.post(url, json=body, headers=headers)), i)

    return call


class StdioDirect(StdioUpstream):
    """The load generator itself as the 2025 client of a stdio server (no proxy at all)."""

    async def __aenter__(self) -> Caller:
        await self.start()

        async def call(i: int) -> None:
            check(await self.request({"method": "tools/call", "params": {"name": "add", "arguments": {"a": i, "b": 1}}}), i)

        return call

    async def __aexit__(self, *exc: object) -> None:
        self.proc.terminate()
        await self.proc.wait()


@dataclass
class Cell:
    latencies: list[float] = field(default_factory=list)
    wall: float = 0.0
    cpu: float = 0.0
    calls: int = 0
    server_cpu: float | None = None
    """CPU seconds of the upstream server (HTTP legs, where the bench starts it) over the cell's rounds."""
    rounds: list[tuple[float, float, int]] = field(default_factory=list)
    """(wall s, CPU s, calls) of each round: ratios round by round show how far the machine's drift moved them."""

    def summary(self, rss: float | None) -> dict:
        lat = sorted(self.latencies)
        return {"p50_ms": statistics.median(lat) * 1000, "p99_ms": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
                "rps": self.calls / self.wall, "cpu_ms_per_call": (self.cpu * 1000 / self.calls) if rss is not None else None,
                "peak_rss_mb": rss,
                "server_cpu_ms_per_call": None if self.server_cpu is None else self.server_cpu * 1000 / self.calls,
                "server_busy": None if self.server_cpu is None else self.server_cpu / self.wall,
                "rounds_rps": [n / wall for wall, _cpu, n in self.rounds],
                "rounds_cpu_ms_per_call": [cpu * 1000 / n for _wall, cpu, n in self.rounds] if rss is not None else None}


async def run_cell(call: Caller, cell: Cell, n: int, concurrency: int, start_index: int, pid: int | None,
                   server: int | None = None) -> None:
    counter = iter(range(start_index, start_index + n))
    latencies: list[float] = []

    async def worker() -> None:
        for i in counter:
            t0 = time.perf_counter()
            await call(i)
            latencies.append(time.perf_counter() - t0)

    cpu0 = cpu_seconds(pid) if pid else 0.0
    server0 = cpu_seconds(server) if server else 0.0
    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - t0
    cpu = (cpu_seconds(pid) - cpu0) if pid else 0.0
    if server:
        cell.server_cpu = (cell.server_cpu or 0.0) + cpu_seconds(server) - server0
    cell.wall += wall
    cell.cpu += cpu
    cell.rounds.append((wall, cpu, n))
    cell.latencies += latencies
    cell.calls += n


@dataclass
class Variant:
    name: str
    pid: int | None
    make: Callable[[httpx.AsyncClient], Awaitable[Caller]] | None = None
    stdio: list[str] | None = None
    server: int | None = None
    """The upstream server's pid when the bench started it (HTTP legs): its CPU per call is reported too."""


async def run_leg(variants: list[Variant], args: argparse.Namespace) -> dict[str, dict]:
    cells = {(v.name, c): Cell() for v in variants for c in args.concurrency}
    per_round = max(1, args.requests // args.rounds)
    # Idle connections expire on the client first (uvicorn closes them after 5 s; the variants take turns),
    # so no request is written into a keep-alive connection the server is closing.
    limits = httpx.Limits(max_connections=max(args.concurrency) + 4, max_keepalive_connections=max(args.concurrency) + 4,
                          keepalive_expiry=2.0)
    client_cm: Any = LeanClient() if args.client == "lean" else httpx.AsyncClient(timeout=60, limits=limits)
    async with client_cm as client:
        callers: dict[str, Caller] = {}
        stacks: list[StdioDirect] = []
        for v in variants:
            if v.stdio is not None:
                direct = StdioDirect(v.stdio)
                stacks.append(direct)
                callers[v.name] = await direct.__aenter__()
            else:
                assert v.make is not None
                callers[v.name] = await v.make(client)
            for i in range(50):  # warm-up: connections, caches, lazy imports
                await callers[v.name](i)
        index = 100
        try:
            for r in range(args.rounds):
                order = variants[r % len(variants):] + variants[:r % len(variants)]
                for c in args.concurrency:
                    for v in order:
                        try:
                            await run_cell(callers[v.name], cells[v.name, c], per_round, c, index, v.pid, v.server)
                        except Exception as exc:
                            raise RuntimeError(f"variant {v.name} at c={c} (round {r}) failed: {exc!r}") from exc
                        index += per_round
        finally:
            for direct in stacks:
                await direct.__aexit__()
    return {f"{name} c={c}": cell.summary(peak_rss_mb(next(v.pid for v in variants if v.name == name))
                                          if next(v.pid for v in variants if v.name == name) else None)
            for (name, c), cell in cells.items()}


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


def url(port: int) -> str:
    return f"http://127.0.0.1:{port}/mcp"


def bridge_cmd(port: int, *extra: str, exe: list[str] | None = None) -> list[str]:
    return [*(exe or [BRIDGE]), "serve", "--log-level", "error", "--listen", f"127.0.0.1:{port}", *extra]


def bridges(stack: ExitStack, args: argparse.Namespace, flags: list[str], client: Callable[..., Awaitable[Caller]]) -> list[Variant]:
    """The bridge of this tree; with --baseline DIR also "before" (another tree's bridge, see main());
    with --nofast also "bridge-nofast" (this tree with MCP_BRIDGE_FAST=0: no uvloop, no httptools)."""
    runs: list[tuple[str, list[str], dict[str, str] | None, str | None]] = []
    if args.baseline:
        # ahead of any PYTHONPATH already set (e.g. the fast-libs of mcp-eras[fast]), which "before" keeps too
        path = os.pathsep.join(p for p in (args.baseline, os.environ.get("PYTHONPATH", "")) if p)
        runs.append(("before", [PY, "-m", "mcp_eras.bridge"], {"PYTHONPATH": path}, args.baseline))
    for spec in args.alt or ():
        name, _, rest = spec.partition("=")
        where, *assignments = rest.split(",")
        env = dict(a.split("=", 1) for a in assignments)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (where, os.environ.get("PYTHONPATH", "")) if p)
        runs.append((name, [PY, "-m", "mcp_eras.bridge"], env, where))
    if args.nofast:
        runs.append(("bridge-nofast", [BRIDGE], {"MCP_BRIDGE_FAST": "0"}, None))
    runs.append(("bridge", [BRIDGE], None, None))
    out = []
    for name, exe, env, cwd in runs:
        port = free_port()
        proc = stack.enter_context(running(bridge_cmd(port, *flags, exe=exe), port, env, cwd))
        out.append(Variant(name, proc.pid, make=lambda c, port=port: client(c, url(port))))
    return out


def leg_a_stdio(stack: ExitStack, args: argparse.Namespace) -> list[Variant]:
    server = [LEGACY_PY, str(ROOT / "samples" / "legacy" / "everything_server.py")]
    nr = free_port()
    relay = stack.enter_context(running([*RELAY, "--port", str(nr), "--mode", "a", "--", *server], nr))
    out = [Variant("direct", None, stdio=server),
           Variant("null", relay.pid, make=lambda c: modern_http(c, url(nr))),
           *bridges(stack, args, ["--upstream-era", "2025-11-25", "--", *server], modern_http)]
    if args.peer and (proxy := peer_mcp_proxy()):
        pp = free_port()
        peer = stack.enter_context(running([proxy, "--host", "127.0.0.1", "--port", str(pp), "--", *server], pp))
        out.append(Variant("mcp-proxy", peer.pid, make=lambda c: legacy_http(c, url(pp))))
    return out


def leg_http(stack: ExitStack, era: str, args: argparse.Namespace) -> list[Variant]:
    """A-http (era a: legacy server, 2026 client) or B (era b: modern server, 2025 client)."""
    if era == "a":
        server = [LEGACY_PY, str(ROOT / "samples" / "legacy" / "everything_server.py")]
        flags, client = ["--upstream-era", "2025-11-25"], modern_http
    else:
        server = [PY, str(ROOT / "samples" / "modern" / "everything_server.py")]
        flags, client = ["--front-era", "2025-11-25", "--upstream-era", "2026-07-28"], legacy_http
    up, nr = free_port(), free_port()
    pid = stack.enter_context(running([*server, "http", "--port", str(up)], up)).pid
    relay = stack.enter_context(running([*RELAY, "--port", str(nr), "--mode", era, "--upstream", url(up)], nr))
    variants = [Variant("direct", None, make=lambda c: legacy_http(c, url(up))),
                Variant("null", relay.pid, make=lambda c: client(c, url(nr))),
                *bridges(stack, args, [*flags, "--upstream", url(up)], client)]
    for v in variants:
        v.server = pid
    return variants


def report(results: dict[str, dict[str, dict]], concurrency: list[int]) -> None:
    print(f"{'leg':<8} {'variant':<10} {'c':>3} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>8} {'cpu ms/call':>11} {'peak RSS':>9}")
    for leg, cells in results.items():
        for key, s in cells.items():
            name, c = key.split(" c=")
            cpu = f"{s['cpu_ms_per_call']:.3f}" if s["cpu_ms_per_call"] is not None else "-"
            rss = f"{s['peak_rss_mb']:.0f} MB" if s["peak_rss_mb"] is not None else "-"
            print(f"{leg:<8} {name:<10} {c:>3} {s['p50_ms']:>8.2f} {s['p99_ms']:>8.2f} {s['rps']:>8.0f} {cpu:>11} {rss:>9}")
    print("\nratios (proxy / null relay, proxy / direct):")
    for leg, cells in results.items():
        proxies = list(dict.fromkeys(k.split(" c=")[0] for k in cells if not k.startswith(("null ", "direct "))))
        for name in proxies:
            for c in concurrency:
                b, n, d = cells[f"{name} c={c}"], cells[f"null c={c}"], cells[f"direct c={c}"]
                print(f"{leg:<8} {name:<13} c={c:<3} cpu/call {b['cpu_ms_per_call'] / n['cpu_ms_per_call']:.2f}x  "
                      f"p50 {b['p50_ms'] / n['p50_ms']:.2f}x  req/s {b['rps'] / n['rps']:.2f}x vs null, "
                      f"{b['rps'] / d['rps']:.2f}x vs direct")
    servers = [(leg, key, s) for leg, cells in results.items() for key, s in cells.items() if s.get("server_cpu_ms_per_call")]
    if servers:
        # At c=1 a direct client keeps the server busy nearly all the time; a proxy's latency leaves it idle between
        # calls, and an idle server also spends more CPU per call (caches gone cold): both show here.
        print("\nupstream server (HTTP legs): CPU ms per call, and the share of the wall time it was running:")
        for leg, key, s in servers:
            name, c = key.split(" c=")
            print(f"{leg:<8} {name:<13} c={c:<3} {s['server_cpu_ms_per_call']:.3f} ms/call  busy {s['server_busy']:.0%}")
    print("\nround by round (median [lowest-highest] of the rounds' own ratios):")
    for leg, cells in results.items():
        proxies = list(dict.fromkeys(k.split(" c=")[0] for k in cells if not k.startswith("direct ")))
        for name in proxies:
            for c in concurrency:
                b, n, d = cells[f"{name} c={c}"], cells[f"null c={c}"], cells[f"direct c={c}"]
                parts = [f"req/s vs direct {spread(b['rounds_rps'], d['rounds_rps'])}"]
                if name != "null":
                    parts.insert(0, f"cpu/call vs null {spread(b['rounds_cpu_ms_per_call'], n['rounds_cpu_ms_per_call'])}")
                print(f"{leg:<8} {name:<13} c={c:<3} " + "  ".join(parts))


def spread(values: list[float] | None, baseline: list[float] | None) -> str:
    """Round-by-round ratios of two cells (the same rounds, so the same stretch of the machine's drift)."""
    if not values or not baseline:
        return "-"
    ratios = sorted(v / b for v, b in zip(values, baseline, strict=True))
    return f"{statistics.median(ratios):.2f}x [{ratios[0]:.2f}-{ratios[-1]:.2f}]"


@contextmanager
def idle_latency(us: int) -> Iterator[None]:
    """The kernel keeps CPU idle states within ``us`` microseconds of wake-up while the request's file stays open
    (Documentation/power/pm_qos_interface.rst: a 32-bit value written to /dev/cpu_dma_latency)."""
    fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
    try:
        os.write(fd, struct.pack("i", us))
        yield
    finally:
        os.close(fd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=1000, help="calls per (variant, concurrency) cell")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--legs", nargs="+", default=["A-stdio", "A-http", "B"], choices=["A-stdio", "A-http", "B"])
    parser.add_argument("--peer", action="store_true", help="add PyPI mcp-proxy 0.13.0 to the A-stdio leg")
    parser.add_argument("--baseline", metavar="DIR", help="also run the bridge of another tree as 'before': DIR holds "
                        "mcp_eras/ (with bridge/ inside) and becomes PYTHONPATH and cwd of that bridge")
    parser.add_argument("--alt", action="append", metavar="NAME=DIR[,VAR=VALUE...]",
                        help="also run the bridge of another tree (as --baseline) under NAME, with these environment "
                        "variables set; repeatable: one run compares variants of a tree, e.g. with one fast path cut")
    parser.add_argument("--nofast", action="store_true", help="also run this tree's bridge with MCP_BRIDGE_FAST=0")
    parser.add_argument("--client", choices=["httpx", "lean"], default="httpx",
                        help="the load generator's HTTP client: httpx (as the SDKs) or bench/lean_client.py, whose own "
                        "cost is small enough that at c=64 the proxy, not the client, saturates")
    parser.add_argument("--idle-latency", type=int, metavar="US",
                        help="hold the CPUs' idle wake-up latency at US microseconds for the whole run (Linux PM QoS, "
                        "/dev/cpu_dma_latency, as tuned's latency-performance profile does; needs root). 0 keeps idle "
                        "CPUs polling instead of halting: on a VM it shows what the chain pays for waking halted vCPUs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, dict[str, dict]] = {}
    with ExitStack() as held:
        if args.idle_latency is not None:
            try:
                held.enter_context(idle_latency(args.idle_latency))
            except OSError as exc:
                parser.error(f"--idle-latency: cannot hold a PM QoS request on /dev/cpu_dma_latency ({exc.strerror}; "
                             "it needs root on Linux)")
        for leg in args.legs:
            with ExitStack() as stack:
                variants = leg_a_stdio(stack, args) if leg == "A-stdio" else leg_http(stack, "a" if leg == "A-http" else "b", args)
                results[leg] = asyncio.run(run_leg(variants, args))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        report(results, args.concurrency)


if __name__ == "__main__":
    main()

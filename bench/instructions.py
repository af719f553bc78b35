"""Instructions a proxy executes per relayed call: the null relay and the bridge (and another tree's bridge), counted
by valgrind (callgrind, user space), per leg and concurrency.

    .venv/bin/python bench/instructions.py [--legs A-stdio A-http B] [--requests 500] [--concurrency 1 64]
                                           [--baseline DIR]

On a shared machine the CPU time of one call moves 10-30% from run to run (``bridge_bench.py`` prints how far, round by
round), so a change of a few percent cannot be seen in times. An instruction count does not move with the machine's
load: the same tree counted twice differs by well under 1%. It is a count, not a time: it weighs a cache miss like a
hit, and leaves out the kernel (reads, writes, wake-ups: about the same for every proxy, see ``docs/performance.md``).

Each proxy runs under ``valgrind --tool=callgrind --instr-atstart=no`` (about 50 times slower: the load is light); the
count is switched on after a warm-up (``callgrind_control -i on``) and read after the measured calls. The servers and
the load generator (``lean_client``) run natively, as in ``bridge_bench.py``. Needs valgrind (Debian: ``valgrind``).
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bridge_bench import LEGACY_PY, PY, RELAY, ROOT, bridge_cmd, free_port, legacy_http, modern_http, url, wait_port  # noqa: E402
from lean_client import LeanClient  # noqa: E402

LEGACY_SERVER = [LEGACY_PY, str(ROOT / "samples" / "legacy" / "everything_server.py")]
MODERN_SERVER = [PY, str(ROOT / "samples" / "modern" / "everything_server.py")]


def wait_listening(port: int, proc: subprocess.Popen, limit: float = 300) -> None:
    """``bridge_bench.wait_port``, with a limit for a proxy starting under valgrind; not listening by then raises."""
    if not wait_port(port, proc, limit):
        raise RuntimeError(f"nothing listens on {port} after {limit} s")


def proxy_command(leg: str, variant: str, port: int, upstream: str | None) -> tuple[list[str], object]:
    """The proxy's command line and the caller factory for one leg."""
    if leg == "A-stdio":
        if variant == "null":
            return [*RELAY, "--port", str(port), "--mode", "a", "--", *LEGACY_SERVER], modern_http
        return bridge_cmd(port, "--upstream-era", "2025-11-25", "--", *LEGACY_SERVER), modern_http
    assert upstream is not None
    if leg == "A-http":
        if variant == "null":
            return [*RELAY, "--port", str(port), "--mode", "a", "--upstream", upstream], modern_http
        return bridge_cmd(port, "--upstream-era", "2025-11-25", "--upstream", upstream), modern_http
    if variant == "null":
        return [*RELAY, "--port", str(port), "--mode", "b", "--upstream", upstream], legacy_http
    return bridge_cmd(port, "--front-era", "2025-11-25", "--upstream-era", "2026-07-28", "--upstream", upstream), legacy_http


async def control(*args: object) -> None:
    """``callgrind_control ARGS`` (switch counting on or off, dump the counts)."""
    proc = await asyncio.create_subprocess_exec("callgrind_control", *map(str, args), stdout=asyncio.subprocess.DEVNULL,
                                                stderr=asyncio.subprocess.DEVNULL)
    if await proc.wait() != 0:
        raise RuntimeError(f"callgrind_control {args} failed")


async def drive(port: int, pid: int, make: object, requests: int, concurrency: int) -> None:
    async with LeanClient() as client:
        calls = [await make(client, url(port)) for _ in range(concurrency)]  # type: ignore[operator]
        for i in range(40):
            await calls[0](i)
        await control("-i", "on", pid)
        indices = iter(range(requests))

        async def worker(call: object) -> None:
            for i in indices:
                await call(i)  # type: ignore[operator]

        await asyncio.gather(*(worker(call) for call in calls))
        await control("-i", "off", pid)
        await control("-d", pid)


def count(leg: str, variant: str, upstream: str | None, requests: int, concurrency: int, pythonpath: str | None,
          workdir: str) -> float:
    """Instructions per relayed call of one proxy (``variant``: null, or a bridge's name)."""
    port = free_port()
    cmd, make = proxy_command(leg, "null" if variant == "null" else "bridge", port, upstream)
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (pythonpath, env.get("PYTHONPATH", "")) if p)
        cmd = [PY, "-m", "mcp_eras.bridge", *cmd[1:]]  # that tree's bridge, not the installed script's
    out = os.path.join(workdir, f"cg.{leg}.{variant}.{concurrency}")
    valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}.%p"]
    # (run from that tree: ``-m`` puts the working folder first on sys.path, where this repo's own package would win)
    proc = subprocess.Popen([*valgrind, *cmd], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env, cwd=pythonpath or None)
    try:
        wait_listening(port, proc)
        asyncio.run(drive(port, proc.pid, make, requests, concurrency))
    finally:
        proc.terminate()
        proc.wait(60)
    return callgrind_total(glob.glob(out + ".*")) / requests


def callgrind_total(paths: list[str]) -> int:
    """The instruction count of callgrind dumps (the largest ``summary:``/``totals:`` line among them)."""
    total = 0
    for path in paths:
        for line in Path(path).read_text(errors="replace").splitlines():
            if line.startswith(("summary:", "totals:")):
                total = max(total, int(line.split()[1]))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legs", nargs="+", default=["A-stdio", "A-http", "B"], choices=["A-stdio", "A-http", "B"])
    parser.add_argument("--requests", type=int, default=500, help="measured calls per cell")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--baseline", help="another tree (a folder holding mcp_eras/) counted as 'before'")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("bench/instructions.py needs valgrind (Debian: apt-get install valgrind)")
    variants: list[tuple[str, str | None]] = [("null", None), ("bridge", None)]
    if args.baseline:
        variants.insert(1, ("before", args.baseline))
    print(f"{'leg':<8} {'c':>3} " + " ".join(f"{name + ' k/call':>15}" for name, _ in variants) + "   ratios to null")
    with tempfile.TemporaryDirectory(prefix="mcp-eras-ir-") as workdir:
        for leg in args.legs:
            server = None
            upstream = None
            if leg != "A-stdio":
                up = free_port()
                server_cmd = [*(LEGACY_SERVER if leg == "A-http" else MODERN_SERVER), "http", "--port", str(up)]
                server = subprocess.Popen(server_cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL)
                wait_listening(up, server)
                upstream = url(up)
            try:
                for c in args.concurrency:
                    counts = [count(leg, name, upstream, args.requests, c, path, workdir) for name, path in variants]
                    ratios = " ".join(f"{name} {n / counts[0]:.2f}x" for (name, _), n in zip(variants[1:], counts[1:], strict=True))
                    print(f"{leg:<8} {c:>3} " + " ".join(f"{n / 1000:>15.1f}" for n in counts) + f"   {ratios}", flush=True)
            finally:
                if server is not None:
                    server.terminate()
                    server.wait(10)


if __name__ == "__main__":
    main()

"""Instructions the upstream server executes per call, called directly and through each proxy (valgrind callgrind).

    .venv/bin/python bench/server_instructions.py [--legs A-http B] [--requests 500] [--rounds 2] [--baseline DIR]

``bridge_bench.py`` shows the upstream server spending 10-15% more CPU time per call behind a proxy than behind a
direct client at c=1. This tells extra work from the same work run slower: the server runs under
``valgrind --tool=callgrind --instr-atstart=no`` and its count is switched on only around each variant's measured
calls (``callgrind_control -i on|off``, then ``-d`` to dump and zero it). All variants call the same server process,
one after another, round by round. The proxies and the load generator (``lean_client``) run natively. Variants: direct
(a 2025 session straight to the server), null (``null_relay.py``), bridge, and with ``--baseline DIR`` another tree's
bridge as "before". Needs valgrind (Debian: ``valgrind``).
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
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bridge_bench import PY, RELAY, bridge_cmd, free_port, legacy_http, modern_http, running, url  # noqa: E402
from instructions import LEGACY_SERVER, MODERN_SERVER, callgrind_total, control, wait_listening  # noqa: E402
from lean_client import LeanClient  # noqa: E402


async def measure(leg: str, server_pid: int, up: int, ports: dict[str, int], args: argparse.Namespace,
                  out: str) -> dict[str, list[float]]:
    modern_client = leg == "A-http"  # leg A: 2026 client to the proxies; leg B: 2025 client everywhere
    counts: dict[str, list[float]] = {}
    async with LeanClient() as client:
        calls = {"direct": await legacy_http(client, url(up))}
        for name, port in ports.items():
            calls[name] = await (modern_http if modern_client else legacy_http)(client, url(port))
        for _ in range(args.rounds):
            for name, call in calls.items():
                for i in range(30):
                    await call(i)  # warm: sessions open, caches of every layer filled
                before = set(glob.glob(out + ".*"))
                await control("-i", "on", server_pid)
                for i in range(args.requests):
                    await call(i)
                await control("-i", "off", server_pid)
                await control("-d", server_pid)
                dumped = sorted(set(glob.glob(out + ".*")) - before)
                counts.setdefault(name, []).append(callgrind_total(dumped) / args.requests)
    return counts


def run_leg(leg: str, args: argparse.Namespace, workdir: str) -> dict[str, list[float]]:
    out = os.path.join(workdir, f"cg.{leg}")
    up = free_port()
    server_cmd = [*(LEGACY_SERVER if leg == "A-http" else MODERN_SERVER), "http", "--port", str(up)]
    valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}.%p"]
    server = subprocess.Popen([*valgrind, *server_cmd], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_listening(up, server)
        with ExitStack() as stack:
            ports: dict[str, int] = {}
            mode = "a" if leg == "A-http" else "b"
            flags = (["--upstream-era", "2025-11-25"] if leg == "A-http"
                     else ["--front-era", "2025-11-25", "--upstream-era", "2026-07-28"])
            ports["null"] = free_port()
            stack.enter_context(running([*RELAY, "--port", str(ports["null"]), "--mode", mode, "--upstream", url(up)],
                                        ports["null"]))
            if args.baseline:
                ports["before"] = free_port()
                path = os.pathsep.join(p for p in (args.baseline, os.environ.get("PYTHONPATH", "")) if p)
                stack.enter_context(running(bridge_cmd(ports["before"], *flags, "--upstream", url(up),
                                                       exe=[PY, "-m", "mcp_eras.bridge"]),
                                            ports["before"], {"PYTHONPATH": path}, args.baseline))
            ports["bridge"] = free_port()
            stack.enter_context(running(bridge_cmd(ports["bridge"], *flags, "--upstream", url(up)), ports["bridge"]))
            return asyncio.run(measure(leg, server.pid, up, ports, args, out))
    finally:
        server.terminate()
        server.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legs", nargs="+", default=["A-http"], choices=["A-http", "B"])
    parser.add_argument("--requests", type=int, default=500, help="measured calls per variant and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--baseline", help="another tree (a folder holding mcp_eras/) counted as 'before'")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        sys.exit("bench/server_instructions.py needs valgrind (Debian: apt-get install valgrind)")
    with tempfile.TemporaryDirectory(prefix="mcp-eras-sir-") as workdir:
        for leg in args.legs:
            counts = run_leg(leg, args, workdir)
            direct = min(counts["direct"])
            print(f"{leg}: upstream server instructions per call, k (each round), and the lowest vs direct")
            for name, values in counts.items():
                rounds = ", ".join(f"{v / 1000:.1f}" for v in values)
                print(f"  {name:<8} {rounds:<24} {min(values) / direct:.4f}x", flush=True)


if __name__ == "__main__":
    main()

"""Who wakes whom in one relayed call at c=1, leg A over HTTP: the kernel's own record, for direct, null relay and bridge.

    .venv/bin/python bench/wake_chain.py [--rounds 3] [--window 0.3]

At concurrency 1 a call is a chain of wake-ups between processes: the client's request wakes the proxy, the proxy's
upstream request wakes the server, the server's answer wakes the proxy, the proxy's answer wakes the client.
``call_timeline.py`` times the bridge's own links from inside; this reads the chain from the scheduler's trace
(``perf sched record``: every context switch and wake-up on the machine) while calls run, and prints per variant:

  calls/s          calls completed in the recorded window (perf's tracing slows every variant a little)
  server sleeps    the server's voluntary context switches per call (``/proc/<pid>/status``): how often it ran out of
                   work and went to sleep between calls
  server wake      median time from a wake-up of the sleeping server to its running again ("sch delay"): on a virtual
                   machine whose idle CPU has halted, this is the hypervisor bringing the vCPU back
  links            median µs between the wake-ups that bound each link: proxy out (server's answer to proxy's answer),
                   client (proxy's answer to the next request), proxy in (request to the proxy's upstream request),
                   server (upstream request to the server's answer)

A direct client keeps the server busy: the client's next request arrives while the server still tears the previous call
down, so the server never sleeps. Behind any proxy the chain outside the server is longer than that teardown, the
server sleeps once per call, and its wake-up costs what the machine charges for an idle CPU. The variants run in
rotating order, round by round, on the same server. Needs ``perf`` (Debian: ``linux-perf``) and the right to trace
the scheduler (root, or ``kernel.perf_event_paranoid`` at -1).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bridge_bench import LEGACY_PY, RELAY, ROOT, bridge_cmd, free_port, legacy_http, modern_http, running, url  # noqa: E402
from lean_client import LeanClient  # noqa: E402

WAKE = re.compile(r"\s*([\d.]+)\s+\[\d+\]\s+\S+\[(\d+)(?:/\d+)?\]\s+awakened: \S+\[(\d+)(?:/\d+)?\]")
SWITCH = re.compile(r"\s*([\d.]+)\s+\[\d+\]\s+\S+\[(\d+)(?:/\d+)?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")


def voluntary_switches(pid: int) -> int:
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                total += int(line.split()[1])
    return total


def timehist(data: str) -> list[str]:
    out = subprocess.run(["perf", "sched", "-i", data, "timehist", "-w"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def chain(lines: list[str], server: int, proxy: int | None, client: int) -> dict[str, list[float]]:
    """Link durations (µs) from the wake-ups between the three processes, and the server's and proxy's wake delays. The
    server link runs from the request reaching it to the last of its answer's wake-ups (head, data, end of the chunked body)
    before the answer went on: the end for a direct client and for the null relay (both read the whole body), the
    data event for the bridge (it answers on it)."""
    names = {server: "S", client: "C", **({proxy: "P"} if proxy is not None else {})}
    links: dict[str, list[float]] = {"proxy out": [], "client": [], "proxy in": [], "server": [], "server wake": [],
                                     "proxy wake": []}
    answer_in = answered = asked = sent = None  # the last wake-up of each kind
    for line in lines:
        if (m := SWITCH.match(line)) is not None:
            if float(m[3]) > 0 and names.get(int(m[2])) in ("S", "P"):  # a run that followed a sleep: its wake delay
                links["server wake" if int(m[2]) == server else "proxy wake"].append(float(m[4]) * 1000)
            continue
        if (m := WAKE.match(line)) is None:
            continue
        waker, woken = names.get(int(m[2])), names.get(int(m[3]))
        if waker is None or woken is None:
            continue
        t = float(m[1]) * 1e6
        kind = waker + woken
        if kind in ("SP", "SC"):  # server's answer bytes (head, data, end): the last one before the answer counts
            answer_in = t
            if kind == "SC":
                answered = t
        elif kind == "PC":
            if answer_in is not None and sent is not None and answer_in > sent:
                links["proxy out"].append(t - answer_in)
                links["server"].append(answer_in - sent)
            answered = t
        elif kind in ("CP", "CS"):
            if answered is not None:
                links["client"].append(t - answered)
            if kind == "CS" and sent is not None and answered is not None and answered > sent:
                links["server"].append(answered - sent)
            asked = t
            if kind == "CS":
                sent = t
        elif kind == "PS":
            if asked is not None and (answered is None or asked > answered):
                links["proxy in"].append(t - asked)
            sent = t
    return links


async def measure(variants: dict[str, tuple[int | None, object]], server: int, args: argparse.Namespace,
                  workdir: str) -> dict[str, list[dict[str, float]]]:
    results: dict[str, list[dict[str, float]]] = {name: [] for name in variants}
    order = list(variants)
    for rnd in range(args.rounds):
        for name in order[rnd % len(order):] + order[:rnd % len(order)]:
            proxy, call = variants[name]
            for i in range(200):
                await call(i)  # type: ignore[operator]
            data = os.path.join(workdir, f"{name}.{rnd}.data")
            rec = subprocess.Popen(["perf", "sched", "record", "-o", data, "--", "sleep", str(args.window)],  # noqa: ASYNC220
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            await asyncio.sleep(0.15)  # perf is tracing by now
            switches, t0, n = voluntary_switches(server), time.perf_counter(), 0
            while rec.poll() is None:
                await call(n)  # type: ignore[operator]
                n += 1
            wall, switches = time.perf_counter() - t0, voluntary_switches(server) - switches
            if rec.returncode != 0:
                raise SystemExit("perf sched record failed (is tracing allowed? run as root)")
            links = chain(timehist(data), server, proxy, os.getpid())
            row = {"calls/s": n / wall, "server sleeps": switches / n}
            for k, v in links.items():
                if not v:
                    continue
                if k.endswith("wake"):  # a wake-up is either quick or pays the idle CPU's exit: the mean weighs both
                    row[k] = statistics.fmean(v)
                    row[k + " >20"] = sum(d > 20 for d in v) / len(v)
                elif proxy is not None:  # (a busy server is not woken by a direct client: no chain to read)
                    row[k] = statistics.median(v)
            results[name].append(row)
    return results


def report(results: dict[str, list[dict[str, float]]]) -> None:
    cols = ["calls/s", "server sleeps", "server wake", "server wake >20", "proxy wake", "proxy wake >20", "server",
            "proxy out", "client", "proxy in"]
    shares = ("server sleeps", "server wake >20", "proxy wake >20")
    print(f"{'variant':8s}" + "".join(f"{c:>16s}" for c in cols))
    for name, rows in results.items():
        cells = []
        for c in cols:
            values = [r[c] for r in rows if c in r]
            cells.append(f"{statistics.median(values):16.{2 if c in shares else 0}f}" if values else f"{'-':>16s}")
        print(f"{name:8s}" + "".join(cells))
    print("(per variant, the median over the rounds; within a round: wake = mean delay of the process's wake-ups from a\n"
          " sleep, >20 = the share of them over 20 µs; links = median µs; sleeps per call)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--window", type=float, default=0.3, help="seconds recorded per variant and round")
    args = parser.parse_args()
    if shutil.which("perf") is None:
        raise SystemExit("needs perf (Debian: linux-perf)")

    async def run() -> dict[str, list[dict[str, float]]]:
        with ExitStack() as stack, tempfile.TemporaryDirectory() as workdir:
            up, nr, br = free_port(), free_port(), free_port()
            server = stack.enter_context(running([LEGACY_PY, str(ROOT / "samples" / "legacy" / "everything_server.py"),
                                                  "http", "--port", str(up)], up))
            relay = stack.enter_context(running([*RELAY, "--port", str(nr), "--mode", "a", "--upstream", url(up)], nr))
            bridge = stack.enter_context(running(bridge_cmd(br, "--upstream-era", "2025-11-25", "--upstream", url(up)), br))
            async with LeanClient() as client:
                variants = {"direct": (None, await legacy_http(client, url(up))),
                            "null": (relay.pid, await modern_http(client, url(nr))),
                            "bridge": (bridge.pid, await modern_http(client, url(br)))}
                return await measure(variants, server.pid, args, workdir)

    report(asyncio.run(run()))


if __name__ == "__main__":
    main()

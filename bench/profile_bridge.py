"""Where the bridge spends its CPU per relayed call: cProfile of a running ``mcp-bridge serve``, per leg.

    .venv/bin/python bench/profile_bridge.py [--legs A-stdio A-http B] [--requests 2000]
                                             [--concurrency 1 64] [--top 20] [--save DIR] [--lines | --sequence]

The bridge runs in a child process under cProfile (``--inner``); the profiler is switched on after a
warm-up (SIGUSR1) and off after the measured calls (SIGUSR2), which also writes the stats. Printed per
leg: the top functions by self time and by cumulative time, with the number of calls per relayed call,
so the summary reads "what does one call cost, and where" (a coroutine counts once per resumption).
Times are process CPU time (``time.process_time``), so waiting costs nothing and load elsewhere on the
machine does not show; the profiler's own overhead inflates the absolute figures (compare, do not quote).
Load comes from the same callers as ``bench/bridge_bench.py`` (same legs, same upstream servers).

``--lines`` counts instead of timing: the Python lines the bridge process executes per relayed call (its own,
its libraries', the standard library's; ``sys.settrace``), by file and by function. A count does not move with
the machine's load, so two trees compare on a noisy machine where times cannot (it weighs every line alike: a
line calling orjson counts as one).

``--sequence`` lists instead what the measured calls run, in order: each Python function as it is entered (a
coroutine at each resumption), indented by call depth, with the lines it ran. It shows which work comes before the
upstream request is written, which while the server works, and which after the answer; run it with a few requests.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import signal
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bridge_bench import LEGACY_PY, PY, ROOT, free_port, legacy_http, modern_http, running, url  # noqa: E402


class LineCounts:
    """A ``sys.settrace`` tracer counting executed lines by (file, function)."""

    def __init__(self) -> None:
        self.counts: dict[tuple[str, str], int] = {}

    def frame(self, frame: Any, event: str, arg: Any) -> Any:
        return self.line if event == "call" else None

    def line(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            key = (frame.f_code.co_filename, frame.f_code.co_name)
            self.counts[key] = self.counts.get(key, 0) + 1
        return self.line

    def dump(self, out: str) -> None:
        with open(out + ".tmp", "w") as f:
            json.dump([[file, fn, n] for (file, fn), n in self.counts.items()], f)


class CallSequence:
    """A ``sys.settrace`` tracer listing every Python frame entry (a coroutine's resumption included) in the order it
    runs: (file, function, depth, lines it executed before it returned or suspended)."""

    def __init__(self) -> None:
        self.rows: list[list[Any]] = []
        self.running: list[int] = []  # rows of the traced frames now on the stack, innermost last

    def frame(self, frame: Any, event: str, arg: Any) -> Any:
        if event != "call":
            return None
        self.running.append(len(self.rows))
        self.rows.append([frame.f_code.co_filename, frame.f_code.co_name, len(self.running) - 1, 0])
        return self.line

    def line(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and self.running:
            self.rows[self.running[-1]][3] += 1
        elif event == "return" and self.running:
            self.running.pop()
        return self.line

    def dump(self, out: str) -> None:
        with open(out + ".tmp", "w") as f:
            json.dump(self.rows, f)


def inner(out: str, argv: list[str]) -> None:
    """Run ``mcp-bridge`` in this process; SIGUSR1 starts the profiler (or a line tracer: ``out`` ending in
    .lines or .seq), SIGUSR2 stops it and saves."""
    profiler = cProfile.Profile(time.process_time)  # CPU time: a wait in epoll costs nothing
    tracers = {".lines": LineCounts, ".seq": CallSequence}
    lines = tracers[Path(out).suffix]() if Path(out).suffix in tracers else None

    def start(*_: object) -> None:
        if lines is not None:
            sys.settrace(lines.frame)
        else:
            profiler.enable()

    def stop(*_: object) -> None:
        if lines is not None:
            sys.settrace(None)
            lines.dump(out)
        else:
            profiler.disable()
            profiler.dump_stats(out + ".tmp")
        os.replace(out + ".tmp", out)

    signal.signal(signal.SIGUSR1, start)
    signal.signal(signal.SIGUSR2, stop)
    from mcp_eras.bridge.cli import main

    main(argv)


def leg_commands(leg: str, up: int, br: int) -> tuple[list[str] | None, list[str], object]:
    """(upstream server command or None, bridge serve arguments, caller factory) for one leg."""
    legacy = [LEGACY_PY, str(ROOT / "samples" / "legacy" / "everything_server.py")]
    modern = [PY, str(ROOT / "samples" / "modern" / "everything_server.py")]
    serve = ["serve", "--log-level", "error", "--listen", f"127.0.0.1:{br}"]
    if leg == "A-stdio":
        return None, [*serve, "--upstream-era", "2025-11-25", "--", *legacy], modern_http
    if leg == "A-http":
        return [*legacy, "http", "--port", str(up)], [*serve, "--upstream-era", "2025-11-25", "--upstream", url(up)], modern_http
    return ([*modern, "http", "--port", str(up)],
            [*serve, "--front-era", "2025-11-25", "--upstream-era", "2026-07-28", "--upstream", url(up)], legacy_http)


async def drive(port: int, pid: int, make: object, requests: int, concurrency: list[int]) -> int:
    limits = httpx.Limits(max_connections=max(concurrency) + 4, max_keepalive_connections=max(concurrency) + 4,
                          keepalive_expiry=2.0)  # below the server's 5 s: never write into a closing connection
    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        call = await make(client, url(port))  # type: ignore[operator]
        for i in range(100):
            await call(i)
        os.kill(pid, signal.SIGUSR1)
        total = 0
        for c in concurrency:
            counter = iter(range(total, total + requests))

            async def worker(indices: object = counter) -> None:
                for i in indices:  # type: ignore[attr-defined]
                    await call(i)

            await asyncio.gather(*(worker() for _ in range(c)))
            total += requests
        os.kill(pid, signal.SIGUSR2)
        return total


def summary(path: str, calls: int, top: int) -> str:
    out = io.StringIO()
    stats = pstats.Stats(path, stream=out)
    total = stats.total_tt  # type: ignore[attr-defined]
    out.write(f"profiled CPU: {total * 1000 / calls:.3f} ms per relayed call ({calls} calls)\n")
    for key, title in (("tottime", "self"), ("cumulative", "cumulative")):
        out.write(f"\n-- top {top} by {title} time (ms per relayed call; calls per relayed call) --\n")
        rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2] if key == "tottime" else kv[1][3], reverse=True)  # type: ignore[attr-defined]
        for (file, line, fn), (_cc, nc, tt, ct, _callers) in rows[:top]:
            where = f"{Path(file).parent.name}/{Path(file).name}:{line}" if line else file
            out.write(f"{tt * 1000 / calls:8.4f} {ct * 1000 / calls:8.4f} {nc / calls:7.2f}  {fn}  {where}\n")
    return out.getvalue()


def line_summary(path: str, calls: int, top: int) -> str:
    with open(path) as f:
        rows = [(file, fn, n) for file, fn, n in json.load(f)]
    out = io.StringIO()
    out.write(f"executed: {sum(n for *_, n in rows) / calls:.1f} Python lines per relayed call ({calls} calls)\n")
    by_file: dict[str, int] = {}
    for file, _fn, n in rows:
        where = _short(file)
        by_file[where] = by_file.get(where, 0) + n
    out.write(f"\n-- top {top} files (lines per relayed call) --\n")
    for where, n in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        out.write(f"{n / calls:8.1f}  {where}\n")
    out.write(f"\n-- top {top} functions (lines per relayed call) --\n")
    for file, fn, n in sorted(rows, key=lambda r: -r[2])[:top]:
        out.write(f"{n / calls:8.1f}  {fn}  {_short(file)}\n")
    return out.getvalue()


def sequence_summary(path: str, calls: int, top: int) -> str:
    with open(path) as f:
        rows = json.load(f)
    out = io.StringIO()
    out.write(f"{calls} calls, {sum(r[3] for r in rows)} Python lines; each function as it runs (a coroutine once per "
              "resumption), nested by call depth, with the lines it ran [n]\n")
    for file, fn, depth, n in rows:
        out.write(f"{'  ' * depth}{fn}  {_short(file)}" + (f" [{n}]\n" if n else "\n"))
    return out.getvalue()


def _short(file: str) -> str:
    path = Path(file)
    return f"{path.parent.name}/{path.name}" if path.suffix else file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    parser.add_argument("--legs", nargs="+", default=["A-stdio", "A-http", "B"], choices=["A-stdio", "A-http", "B"])
    parser.add_argument("--requests", type=int, default=2000, help="calls per concurrency level")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--save", help="folder to keep the .prof files in")
    parser.add_argument("--lines", action="store_true", help="count executed Python lines instead of timing")
    parser.add_argument("--sequence", action="store_true", help="list the Python functions the measured calls run, in "
                        "order (use few --requests: about 200 rows per call)")
    args, rest = parser.parse_known_args()
    if args.inner:
        inner(args.inner, rest[1:] if rest[:1] == ["--"] else rest)
        return
    save = Path(args.save) if args.save else Path(tempfile.mkdtemp(prefix="bridge-prof-"))
    save.mkdir(parents=True, exist_ok=True)
    for leg in args.legs:
        up, br = free_port(), free_port()
        server, serve, make = leg_commands(leg, up, br)
        kind = "seq" if args.sequence else "lines" if args.lines else "prof"
        out = str(save / f"{leg}.{kind}")
        with ExitStack() as stack:
            if server is not None:
                stack.enter_context(running(server, up))
            bridge = stack.enter_context(running([PY, __file__, "--inner", out, "--", *serve], br))
            calls = asyncio.run(drive(br, bridge.pid, make, args.requests, args.concurrency))
            deadline = time.monotonic() + 60
            while not os.path.exists(out) and time.monotonic() < deadline:
                time.sleep(0.1)
        print(f"==== {leg} ====")
        print({"seq": sequence_summary, "lines": line_summary, "prof": summary}[kind](out, calls, args.top))


if __name__ == "__main__":
    main()

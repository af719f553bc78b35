"""Where one relayed call's time goes at c=1, leg A over HTTP: timestamps on the bridge's path, and who ran when.

    .venv/bin/python bench/call_timeline.py [--requests 3000]

At concurrency 1 a call's latency is a chain: client, bridge in, server, bridge out, client. ``bridge_bench.py`` gives
the chain's total; this gives its links. The bridge runs in a child (``--inner``) with hooks that take a timestamp
(``perf_counter_ns``) at each of these points of every call:

  F<  bytes of the client's request reach the front (uvicorn's httptools protocol, ``data_received``)
  C   the request head is parsed and taken by the shortcut (``fast_post.FastCycle`` made)
  S   the task serving it takes its first step (``FastPost.serve``)
  H   the front hands the canonical request to its upstream (``HttpFront._dispatch_here``)
  U>  the upstream request is written (the lean HTTP client's transport)
  U<  bytes of the upstream's answer arrive (head, then the chunk with the ``data:`` event, then the end)
  Q   the answer is handed to the waiting call (``legacy_driver.Inbox.put_nowait``)
  G   the call's task has it (``Inbox.get`` returns)
  F>  the answer is written to the client

It prints the median of each link over the measured calls, and from ``/proc/<pid>/task/*/schedstat`` the CPU each
process ran per call and the time it sat runnable but waiting for a CPU: for the server, the bridge and this load
generator, beside a direct connection (a 2025 session straight to the server) measured in the same way. The hooks add
a few microseconds per link: compare links with each other, and quote ``bridge_bench.py`` for totals.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import signal
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bridge_bench import LEGACY_PY, PY, ROOT, bridge_cmd, free_port, legacy_http, modern_http, running, url  # noqa: E402
from lean_client import LeanClient  # noqa: E402

LINKS = [("F<", "C", "head parsed, taken by the shortcut"), ("C", "S", "serving task's first step (a loop turn)"),
         ("S", "H", "body parsed, 2026 checks, dispatch"), ("H", "U>", "session, machine, upstream request written"),
         ("U>", "D", "upstream server: request to data event"), ("D", "Q", "chunk and SSE parsed, answer handed over"),
         ("Q", "G", "call's task wakes (a loop turn)"), ("G", "F>", "machine, reply, answer written")]


def inner(out: str, argv: list[str]) -> None:
    """The bridge with timestamp hooks; SIGUSR1 writes the events to ``out``."""
    import uvicorn.protocols.http.httptools_impl as hti

    from mcp_eras.bridge.cli import main
    from mcp_eras.bridge.front import fast_post
    from mcp_eras.bridge.front import http as front_http
    from mcp_eras.bridge.upstream import lean_http, legacy_driver

    events: list[tuple[str, int, bytes]] = []
    ns = time.perf_counter_ns

    class Timed:
        """A transport whose writes are timestamped."""

        def __init__(self, transport: Any, key: str) -> None:
            self._t, self._k = transport, key

        def write(self, data: bytes) -> None:
            events.append((self._k, ns(), b""))
            self._t.write(data)

        def __getattr__(self, name: str) -> Any:
            return getattr(self._t, name)

    def before(cls: Any, name: str, key: str, keep: bool = False) -> None:
        original = getattr(cls, name)

        def hooked(self: Any, *a: Any) -> Any:
            events.append((key, ns(), a[0] if keep else b""))
            return original(self, *a)
        setattr(cls, name, hooked)

    def after_init(cls: Any, key: str) -> None:
        original = cls.__init__

        def hooked(self: Any, *a: Any) -> None:
            original(self, *a)
            events.append((key, ns(), b""))
        cls.__init__ = hooked

    def on_start(cls: Any, name: str, key: str) -> None:
        original = getattr(cls, name)

        async def hooked(self: Any, *a: Any) -> Any:
            events.append((key, ns(), b""))
            return await original(self, *a)
        setattr(cls, name, hooked)

    before(hti.HttpToolsProtocol, "data_received", "F<")
    made = hti.HttpToolsProtocol.connection_made

    def front_made(self: Any, transport: Any) -> None:
        made(self, transport)
        self.transport = Timed(self.transport, "F>")
    hti.HttpToolsProtocol.connection_made = front_made
    before(lean_http._Conn, "data_received", "U<", keep=True)  # noqa: SLF001
    conn_made = lean_http._Conn.connection_made  # noqa: SLF001
    lean_http._Conn.connection_made = lambda self, t: conn_made(self, Timed(t, "U>"))  # noqa: SLF001
    after_init(fast_post.FastCycle, "C")
    on_start(fast_post.FastPost, "serve", "S")
    on_start(front_http.HttpFront, "_dispatch_here", "H")
    before(legacy_driver.Inbox, "put_nowait", "Q")
    got = legacy_driver.Inbox.get

    async def timed_get(self: Any) -> Any:
        msg = await got(self)
        events.append(("G", ns(), b""))
        return msg
    legacy_driver.Inbox.get = timed_get

    def dump(*_: object) -> None:
        with open(out + ".tmp", "w") as f:
            f.writelines(f"{k} {t} {int(b'data:' in data)}\n" for k, t, data in events)
        os.replace(out + ".tmp", out)
        events.clear()
    signal.signal(signal.SIGUSR1, dump)
    signal.signal(signal.SIGUSR2, lambda *_: events.clear())
    main(argv)


def schedstat(pid: int) -> tuple[int, int]:
    """(ns run, ns runnable but waiting) over the process's threads."""
    run = wait = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        fields = (task / "schedstat").read_text().split()
        run, wait = run + int(fields[0]), wait + int(fields[1])
    return run, wait


def links(path: str) -> dict[str, float]:
    """Median microseconds of each link over the calls whose every point was seen (in order, one call at a time)."""
    calls, cur = [], None
    for line in Path(path).read_text().splitlines():
        key, t, data = line.split()
        if key == "F<":
            cur = {"F<": int(t)}
        elif cur is None:
            continue
        elif key == "F>":
            cur["F>"] = int(t)
            if all(k in cur for k in ("C", "S", "H", "U>", "D", "Q", "G")):
                calls.append(cur)
            cur = None
        elif key == "U<":
            if data == "1":
                cur.setdefault("D", int(t))
        else:
            cur.setdefault(key, int(t))
    if not calls:
        raise SystemExit("no call passed every hook")
    spans = [*LINKS, ("F<", "U>", ""), ("D", "F>", "")]
    return {f"{a}->{b}": statistics.median(c[b] - c[a] for c in calls) / 1000 for a, b, _ in spans} | {"calls": len(calls)}


async def drive(args: argparse.Namespace, up: str, bridge: str, pids: dict[str, int]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    async with LeanClient() as client:
        for name, caller in (("direct", await legacy_http(client, up)), ("bridge", await modern_http(client, bridge))):
            for i in range(300):
                await caller(i)
            if name == "bridge":
                os.kill(pids["bridge"], signal.SIGUSR2)
                await asyncio.sleep(0.2)
            watched = {"server": pids["server"], "client": os.getpid(), **({"bridge": pids["bridge"]} if name == "bridge" else {})}
            before = {k: schedstat(p) for k, p in watched.items()}
            t0 = time.perf_counter()
            for i in range(args.requests):
                await caller(i)
            wall = time.perf_counter() - t0
            row = {"us/call": wall / args.requests * 1e6}
            for k, p in watched.items():
                run, wait = (b - a for a, b in zip(before[k], schedstat(p), strict=True))
                row[f"{k} run"], row[f"{k} wait"] = run / args.requests / 1000, wait / args.requests / 1000
            out[name] = row
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args()
    if args.inner:
        inner(args.inner, rest[1:] if rest[:1] == ["--"] else rest)
        return
    if importlib.util.find_spec("httptools") is None:
        raise SystemExit("call_timeline.py times the shortcut of mcp-eras[fast]: install it (httptools), or put "
                         ".venvs/fast-libs on PYTHONPATH as bridge_bench.py's runs do")
    with ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        up, br = free_port(), free_port()
        server = stack.enter_context(running([LEGACY_PY, str(ROOT / "samples/legacy/everything_server.py"), "http",
                                              "--port", str(up)], up))
        out = os.path.join(tmp, "events")
        serve = bridge_cmd(br, "--upstream-era", "2025-11-25", "--upstream", url(up))[1:]
        bridge = stack.enter_context(running([PY, __file__, "--inner", out, "--", *serve], br))
        rows = asyncio.run(drive(args, url(up), url(br), {"server": server.pid, "bridge": bridge.pid}))
        bridge.send_signal(signal.SIGUSR1)
        for _ in range(100):
            if os.path.exists(out):
                break
            time.sleep(0.05)
        medians = links(out)
    print(f"A-http, c=1, {args.requests} calls: bridge links (median us over {medians.pop('calls')} calls)")
    for a, b, what in LINKS:
        print(f"  {a:>2} -> {b:<2} {medians[f'{a}->{b}']:8.1f}  {what}")
    print(f"  in (F< -> U>) {medians['F<->U>']:.1f}, out (D -> F>) {medians['D->F>']:.1f}")
    print("\nper call (us): wall, and per process CPU run / runnable-but-waiting (schedstat)")
    for name, row in rows.items():
        procs = "  ".join(f"{k} {row[f'{k} run']:.0f}/{row[f'{k} wait']:.0f}" for k in ("server", "bridge", "client")
                          if f"{k} run" in row)
        print(f"  {name:<7} {row['us/call']:7.1f}  {procs}")


if __name__ == "__main__":
    main()

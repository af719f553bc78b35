"""The warm cost of the bridge's own Python on one relayed call, without any I/O: a 2026 ``tools/call`` through
``LegacyUpstream`` (pool, call machine, session driver), then ``TasksUpstream`` and ``ObservedUpstream`` on top,
over a transport that answers at once (no child, no socket, no task switch).

    .venv/bin/python bench/upstream_path.py [--calls 20000] [--idle-sessions 1000]

With ``--idle-sessions N``, N other callers (other credentials) each hold an idle upstream session beside the
measured one: a relayed call's cost must not grow with them (no scan of every session per call).

Process CPU per call, by layer. Compare with ``bench/bridge_bench.py`` (the same call end to end): the
difference is the I/O path (pipes, sockets, wake-ups) and running with caches cooled by the client and the
server on the same cores, which this hot loop does not pay.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path
from typing import Any

from mcp_eras.bridge import _perf
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream, discard
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.layers.observe import ObservedUpstream, register_metrics
from mcp_eras.bridge.layers.tasks import TasksUpstream
from mcp_eras.bridge.upstream.legacy import LegacyUpstream

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "inprocess"))
from instant_legacy import Instant, request  # noqa: E402  (the instant 2025 server the per-call test counts over)


async def measure(layers: int, calls: int, others: int = 0) -> float:
    legacy = LegacyUpstream(lambda ctx: Instant(), Settings(pool_max_sessions=max(64, others + 1)), name="bench")
    top: Upstream = legacy
    if layers >= 1:
        top = TasksUpstream(legacy, Settings(), lambda: (lambda ctx: Instant()))
    if layers >= 2:
        metrics = Metrics()
        register_metrics(metrics)
        top = ObservedUpstream(top, metrics)
    ctx = CallContext(principal=None)
    for n in range(others):  # idle sessions of other callers: other credentials (principals), one session each
        await top.call(request(n), CallContext(principal=f"tenant-{n}"), discard)
    for i in range(200):
        await top.call(request(i), ctx, discard)
    gc.collect()  # what earlier measurements left is not this one's to collect
    started = time.process_time()
    answer: Any = None
    for i in range(calls):
        answer = await top.call(request(i), ctx, discard)
    per_call = (time.process_time() - started) / calls
    assert answer["result"]["content"][0]["text"] == str(calls), answer
    await top.aclose()
    return per_call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--idle-sessions", type=int, default=0,
                        help="idle upstream sessions of other callers open beside the measured one (per-call cost must not grow)")
    args = parser.parse_args()
    print(f"event loop: {_perf.loop_name()}" + (f"; {args.idle_sessions} idle sessions of other callers" if args.idle_sessions else ""))
    for layers, name in ((0, "LegacyUpstream"), (1, "+ TasksUpstream"), (2, "+ ObservedUpstream")):
        print(f"{name:20s} {_perf.run(measure(layers, args.calls, args.idle_sessions)) * 1e6:6.1f} us per call")


if __name__ == "__main__":
    main()

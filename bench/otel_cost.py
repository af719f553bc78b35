"""What OpenTelemetry alone adds to one relayed call, in-process: the observed call of ``mcp_eras.bridge.layers.observe``
against a stand-in upstream that answers at once, off / on with sampler 0 / on with every span recorded.

    .venv/bin/python bench/otel_cost.py [--calls 20000] [--rounds 5] [--profile VARIANT]

Prints the CPU microseconds per call of each variant (median over interleaved rounds, and the range) and what each
adds to "off". Spans go to a span exporter that drops them, metrics to an in-memory reader that is never read, so
nothing here waits on a socket; the figure is the bridge's own work. ``--profile sampler0`` (or ``on``, ``off``)
prints the cProfile of that variant instead.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1].parent))

from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult  # noqa: E402
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON  # noqa: E402

from mcp_eras.bridge import telemetry  # noqa: E402
from mcp_eras.bridge.core import CallContext, discard  # noqa: E402
from mcp_eras.bridge.fleet.metrics import Metrics  # noqa: E402
from mcp_eras.bridge.layers.observe import ObservedUpstream  # noqa: E402
from mcp_eras.bridge.telemetry.otel import Telemetry  # noqa: E402
from mcp_eras.bridge.upstream.factory import Target  # noqa: E402

REQUEST = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "add", "arguments": {"a": 1, "b": 2},
                      "_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25"}}}
TARGET = Target(url="http://127.0.0.1:3000/mcp")
"""The stand-in's address: the client span and histogram carry it, as they do for a real HTTP upstream."""
ANSWER = {"result": {"content": [{"type": "text", "text": "3"}], "isError": False}}


class Drop(SpanExporter):
    def export(self, spans: Sequence[Any]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


class StandIn:
    """A 2025 upstream on HTTP (``TARGET``) that answers every call at once."""

    era = "2025-11-25"
    inner = None

    async def call(self, request: dict, ctx: CallContext, emit: Any) -> dict:
        return {"jsonrpc": "2.0", "id": request["id"], **ANSWER}


def observed(variant: str) -> Any:
    """The observed call of one variant (``telemetry._active`` set while the wrapper is made, as ``--otel`` does)."""
    if variant != "off":
        provider = TracerProvider(sampler=ALWAYS_OFF if variant == "sampler0" else ALWAYS_ON)
        provider.add_span_processor(SimpleSpanProcessor(Drop()))
        telemetry._active = Telemetry(provider, MeterProvider(metric_readers=[InMemoryMetricReader()]))
    try:
        try:
            return ObservedUpstream(StandIn(), Metrics(), target=TARGET).call  # type: ignore[arg-type]
        except TypeError:  # (a tree from before the upstream's network attributes: --baseline-style comparisons)
            return ObservedUpstream(StandIn(), Metrics()).call  # type: ignore[arg-type]
    finally:
        telemetry._active = None


async def run(call: Any, calls: int) -> float:
    ctx = CallContext(client_era="2026-07-28")
    started = time.process_time()
    for _ in range(calls):
        await call(REQUEST, ctx, discard)
    return (time.process_time() - started) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", choices=("off", "sampler0", "on"))
    args = parser.parse_args()
    variants = ("off", "sampler0", "on")
    calls = {v: observed(v) for v in variants}
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(asyncio.run, run(calls[args.profile], args.calls))
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
        return
    figures: dict[str, list[float]] = {v: [] for v in variants}
    for _ in range(args.rounds):
        for variant in variants:
            figures[variant].append(asyncio.run(run(calls[variant], args.calls)))
    off = statistics.median(figures["off"])
    for variant in variants:
        values = figures[variant]
        med = statistics.median(values)
        print(f"{variant:9} {med:7.1f} us/call (range {min(values):.1f}-{max(values):.1f}), adds {med - off:6.1f} us")


if __name__ == "__main__":
    main()

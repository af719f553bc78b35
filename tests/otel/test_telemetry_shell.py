"""The telemetry shell in-process (mcp_eras.bridge.telemetry.otel), with the SDK's in-memory exporter and reader: what
the traced call hands upstream, task links, failures, and the sampler-off path."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

from mcp_eras.bridge.core import CallContext, discard
from mcp_eras.bridge.telemetry.otel import Telemetry

TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


class Inner:
    """A stand-in upstream that keeps what it was sent and answers from a script."""

    era = "2025-11-25"

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.seen: list[tuple[dict, CallContext]] = []

    async def call(self, request: dict, ctx: CallContext, emit: Any) -> dict:
        self.seen.append((request, ctx))
        if isinstance(self.answer, BaseException):
            raise self.answer
        return {"jsonrpc": "2.0", "id": request["id"], **self.answer}


def telemetry(sampler: Any = None) -> tuple[Telemetry, InMemorySpanExporter, InMemoryMetricReader]:
    exporter, reader = InMemorySpanExporter(), InMemoryMetricReader()
    provider = TracerProvider(sampler=sampler) if sampler is not None else TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Telemetry(provider, MeterProvider(metric_readers=[reader])), exporter, reader


def request(method: str = "tools/call", meta: dict | None = None, **params: Any) -> dict:
    return {"jsonrpc": "2.0", "id": 9, "method": method, "params": {"name": "t", **params, **({"_meta": meta} if meta else {})}}


def run(tel: Telemetry, inner: Inner, req: dict, ctx: CallContext = CallContext()) -> dict:
    counted: list[tuple] = []
    call = tel.traced_call(inner, time.monotonic, lambda *a: counted.append(a))
    try:
        return asyncio.run(call(req, ctx, discard))
    finally:
        assert len(counted) == 1  # Prometheus is recorded once per call, failures included


def test_headers_only_context_goes_upstream_in_meta_and_headers() -> None:
    tel, exporter, reader = telemetry()
    inner = Inner({"result": {"content": []}})
    run(tel, inner, request(), CallContext(trace={"traceparent": TP}))
    sent, ctx = inner.seen[0]
    client = next(s for s in exporter.get_finished_spans() if s.kind.name == "CLIENT")
    expected = f"00-4bf92f3577b34da6a3ce929d0e0e4736-{client.context.span_id:016x}-01"
    assert sent["params"]["_meta"]["traceparent"] == expected and ctx.trace["traceparent"] == expected
    server = next(s for s in exporter.get_finished_spans() if s.kind.name == "SERVER")
    assert server.parent is not None and server.parent.span_id == 0x00F067AA0BA902B7
    assert client.parent.span_id == server.context.span_id
    names = {m.name for rm in reader.get_metrics_data().resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    assert names == {"mcp.server.operation.duration", "mcp.client.operation.duration", "mcp_eras.requests"}


def test_a_task_poll_is_linked_to_the_creating_call() -> None:
    tel, exporter, _reader = telemetry()
    run(tel, Inner({"result": {"resultType": "task", "taskId": "task-1"}}), request())
    creator = next(s for s in exporter.get_finished_spans() if s.kind.name == "SERVER")
    run(tel, Inner({"result": {"status": "working"}}), {"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
                                                         "params": {"taskId": "task-1"}})
    poll = [s for s in exporter.get_finished_spans() if s.kind.name == "SERVER"][-1]
    assert poll.name == "tasks/get" and [link.context.span_id for link in poll.links] == [creator.context.span_id]


def test_failures_name_their_error_type() -> None:
    tel, exporter, _reader = telemetry()
    run(tel, Inner({"error": {"code": -32602, "message": "bad"}}), request())
    with pytest.raises(RuntimeError):
        run(tel, Inner(RuntimeError("boom")), request())
    kinds = [s.attributes.get("error.type") for s in exporter.get_finished_spans() if s.kind.name == "SERVER"]
    assert kinds == ["-32602", "RuntimeError"]


def test_sampler_off_passes_the_clients_context_on_unchanged() -> None:
    tel, exporter, _reader = telemetry(ALWAYS_OFF)
    inner = Inner({"result": {"content": []}})
    req = request(meta={"traceparent": TP})
    run(tel, inner, req)
    assert inner.seen[0][0] is req and exporter.get_finished_spans() == ()
    run(tel, inner, request(), CallContext(trace={"traceparent": TP}))
    assert inner.seen[1][0]["params"]["_meta"] == {"traceparent": TP}  # (headers only: moved into _meta for a 2025 server)


def test_a_call_queued_for_an_input_lease_has_a_lease_wait_span(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 2025 session runs one input-capable call at a time (its input lease); a second caller of the identity queues,
    and that wait is a ``mcp_eras.lease_wait`` span under the current span (the call's client span)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "inprocess"))
    import fake_legacy
    import handoffs

    from mcp_eras.bridge import telemetry as switch
    from mcp_eras.bridge.config import Settings
    from mcp_eras.bridge.translate.legacy_server.pool import Limits
    from mcp_eras.bridge.upstream.legacy import LegacyUpstream

    tel, exporter, _reader = telemetry()
    monkeypatch.setattr(switch, "_active", tel)
    ask, ctx = {"elicitation": {}}, CallContext(principal="alice")

    async def scenario() -> None:
        bank = fake_legacy.TransportBank()
        up = LegacyUpstream(bank, Settings(), name="fake", limits=Limits(per_identity_sessions=1))
        blocker = asyncio.ensure_future(up.call(handoffs.tools_call(0, "block", ask), ctx, discard))
        await asyncio.wait_for(bank.blocking.wait(), 10)
        with tel.tracer.start_as_current_span("caller"):
            second = asyncio.ensure_future(up.call(handoffs.tools_call(1, "echo", ask), ctx, discard))
        for _ in range(1000):
            if any(up.leases.queues.values()):
                break
            await asyncio.sleep(0)
        bank.made[0].server.release.set()
        await asyncio.wait_for(blocker, 10)
        await asyncio.wait_for(second, 10)
        await up.aclose()

    asyncio.run(scenario())
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert spans["mcp_eras.lease_wait"].parent.span_id == spans["caller"].context.span_id


def test_json_log_lines_carry_the_active_span(monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    import logging

    from mcp_eras.bridge import cli_logs

    tel, _exporter, _reader = telemetry()
    monkeypatch.setattr(cli_logs, "trace_ids", tel.current_ids)
    record = logging.LogRecord("mcp_bridge", logging.INFO, __file__, 1, "relayed", (), None)
    assert "trace_id" not in json.loads(cli_logs.JsonFormatter().format(record))  # outside a span
    with tel.tracer.start_as_current_span("call") as span:
        line = json.loads(cli_logs.JsonFormatter().format(record))
    assert line["trace_id"] == f"{span.get_span_context().trace_id:032x}"
    assert line["span_id"] == f"{span.get_span_context().span_id:016x}"


def test_off_or_absent_imports_nothing_of_opentelemetry() -> None:
    import subprocess

    script = """
import sys
from mcp_eras.bridge import cli, telemetry
from mcp_eras.bridge.layers import cluster, observe
from mcp_eras.bridge.upstream import legacy
assert telemetry.enable(False) is None
assert not [m for m in sys.modules if m.startswith("opentelemetry")], "imported while off"
sys.modules["opentelemetry"] = None  # as if the extra were not installed
assert telemetry.enable(True) is None and telemetry.current() is None
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home())})
    assert proc.stdout.strip() == "ok", proc.stderr[-2000:]
    assert "not installed" in proc.stderr

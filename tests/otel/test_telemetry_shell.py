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


def spans_by_kind(exporter: InMemorySpanExporter) -> dict[str, Any]:
    return {s.kind.name: s for s in exporter.get_finished_spans()}


class ReportingSession(Inner):
    """A stand-in 2025 upstream on Streamable HTTP: as its transport does, it reports the session a traced request goes
    to (``telemetry.upstream_session``), and then a session for a context that is not this call's span."""

    async def call(self, request: dict, ctx: CallContext, emit: Any) -> dict:
        from mcp_eras.bridge import telemetry as switch

        switch.upstream_session(request["params"]["_meta"], "upstream-7")
        switch.upstream_session({"traceparent": TP}, "someone-elses")  # (the client's span: not the bridge's client span)
        return await super().call(request, ctx, emit)


def test_session_ids_where_one_exists(monkeypatch: pytest.MonkeyPatch) -> None:
    """``mcp.session.id`` (semantic-conventions docs/gen-ai/mcp.md note [8]): the 2025 client's session on the server
    span, the 2025 upstream's session on the client span; none for a 2026 client, none invented."""
    from mcp_eras.bridge import telemetry as switch

    tel, exporter, _reader = telemetry()
    monkeypatch.setattr(switch, "_active", tel)
    run(tel, ReportingSession({"result": {"content": []}}), request(meta={"traceparent": TP}),
        CallContext(client_era="2025-11-25", session_id="front-1"))
    spans = spans_by_kind(exporter)
    assert spans["SERVER"].attributes["mcp.session.id"] == "front-1"
    assert spans["CLIENT"].attributes["mcp.session.id"] == "upstream-7"
    exporter.clear()
    run(tel, Inner({"result": {"content": []}}), request(meta={"traceparent": TP}))  # a 2026 client, a stdio child
    assert all("mcp.session.id" not in s.attributes for s in exporter.get_finished_spans())


def histogram_points(reader: InMemoryMetricReader, name: str) -> list[dict[str, Any]]:
    return [dict(p.attributes) for rm in reader.get_metrics_data().resource_metrics for sm in rm.scope_metrics
            for m in sm.metrics if m.name == name for p in m.data.data_points]


def test_network_attributes_error_type_and_status_per_the_conventions() -> None:
    """The client span names the upstream (``network.protocol.name``, ``network.transport``, ``server.address``,
    ``server.port``), the server span the HTTP front; a JSON-RPC error is ``error.type`` = its code with the span status
    described by its message, and both histograms carry ``rpc.response.status_code`` (docs/gen-ai/mcp.md)."""
    from mcp_eras.bridge.upstream.factory import Target

    tel, exporter, reader = telemetry()
    call = tel.traced_call(Inner({"error": {"code": -32602, "message": "Unknown tool: t"}}), time.monotonic, None,
                           target=Target(url="https://Up.Example:8443/mcp"))
    asyncio.run(call(request(), CallContext(), discard))
    spans = spans_by_kind(exporter)
    client, server = spans["CLIENT"], spans["SERVER"]
    assert {k: client.attributes.get(k) for k in ("network.protocol.name", "network.transport", "server.address",
                                                   "server.port")} == {
        "network.protocol.name": "http", "network.transport": "tcp", "server.address": "up.example", "server.port": 8443}
    assert server.attributes["network.transport"] == "tcp" and server.attributes["network.protocol.name"] == "http"
    assert "server.address" not in server.attributes
    for span in (client, server):
        assert span.attributes["error.type"] == "-32602" and span.attributes["rpc.response.status_code"] == "-32602"
        assert span.status.status_code.name == "ERROR" and span.status.description == "Unknown tool: t"
    (client_point,) = histogram_points(reader, "mcp.client.operation.duration")
    (server_point,) = histogram_points(reader, "mcp.server.operation.duration")
    assert client_point["server.address"] == "up.example" and client_point["server.port"] == 8443
    assert client_point["mcp.protocol.version"] == "2025-11-25" and server_point["mcp.protocol.version"] == "2026-07-28"
    assert "server.address" not in server_point
    for point in (client_point, server_point):
        assert point["error.type"] == point["rpc.response.status_code"] == "-32602"
    exporter.clear()
    stdio = tel.traced_call(Inner({"result": {"content": []}}), time.monotonic, None, target=Target(command=["srv"]))
    asyncio.run(stdio(request(), CallContext(), discard))
    client = spans_by_kind(exporter)["CLIENT"]
    assert client.attributes["network.transport"] == "pipe" and "network.protocol.name" not in client.attributes


def test_an_exception_is_named_by_its_canonical_class_name() -> None:
    """``error.type`` of a raised call: the class name qualified by its module unless built in (registry error.md)."""
    import httpx

    tel, exporter, _reader = telemetry()
    with pytest.raises(httpx.ConnectError):
        run(tel, Inner(httpx.ConnectError("refused")), request())
    with pytest.raises(TimeoutError):
        run(tel, Inner(TimeoutError()), request())
    kinds = [s.attributes.get("error.type") for s in exporter.get_finished_spans() if s.kind.name == "SERVER"]
    assert kinds == ["httpx.ConnectError", "TimeoutError"]

"""An OTLP/HTTP receiver for the tests: decodes ExportTraceServiceRequest / ExportMetricsServiceRequest protobufs
(opentelemetry-proto) posted to /v1/traces and /v1/metrics, and keeps the spans and the latest metric points."""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

KINDS = {1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}


def value_of(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


def attributes(items: Any) -> dict[str, Any]:
    return {kv.key: value_of(kv.value) for kv in items}


@dataclass
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: str
    attributes: dict[str, Any]
    events: list[str]
    links: list[tuple[str, str]]
    service: str
    instance: str = ""
    """The exporting process's ``service.instance.id``."""


@dataclass
class Received:
    spans: list[Span] = field(default_factory=list)
    histograms: dict[str, list[tuple[dict[str, Any], int]]] = field(default_factory=dict)
    """Latest export of each histogram: (attributes, count) per point (cumulative temporality)."""
    sums: dict[str, list[tuple[dict[str, Any], float]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add_traces(self, body: bytes) -> None:
        req = ExportTraceServiceRequest()
        req.ParseFromString(body)
        with self.lock:
            for rs in req.resource_spans:
                resource = attributes(rs.resource.attributes)
                service, instance = resource.get("service.name", ""), resource.get("service.instance.id", "")
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        self.spans.append(Span(s.name, s.trace_id.hex(), s.span_id.hex(), s.parent_span_id.hex(),
                                               KINDS.get(s.kind, str(s.kind)), attributes(s.attributes),
                                               [e.name for e in s.events], [(lk.trace_id.hex(), lk.span_id.hex()) for lk in s.links],
                                               service, instance))

    def add_metrics(self, body: bytes) -> None:
        req = ExportMetricsServiceRequest()
        req.ParseFromString(body)
        with self.lock:
            for rm in req.resource_metrics:
                for sm in rm.scope_metrics:
                    for m in sm.metrics:
                        if m.HasField("histogram"):
                            self.histograms[m.name] = [(attributes(p.attributes), p.count) for p in m.histogram.data_points]
                        elif m.HasField("sum"):
                            self.sums[m.name] = [(attributes(p.attributes), p.as_int or p.as_double) for p in m.sum.data_points]

    def wait(self, ready: Callable[[Received], bool], timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if ready(self):
                    return
            time.sleep(0.1)
        raise AssertionError(f"OTLP receiver: condition not met within {timeout}s; spans: "
                             f"{[(s.name, s.kind) for s in self.spans]}, histograms: {self.histograms}")


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, Received]]:
    """(endpoint URL for OTEL_EXPORTER_OTLP_ENDPOINT, what it received)."""
    got = Received()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path == "/v1/traces":
                got.add_traces(body)
                answer = ExportTraceServiceResponse().SerializeToString()
            elif self.path == "/v1/metrics":
                got.add_metrics(body)
                answer = ExportMetricsServiceResponse().SerializeToString()
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", got
    finally:
        server.shutdown()
        server.server_close()


def otel_env(endpoint: str, **extra: str) -> dict[str, str]:
    """The environment of a bridge exporting to ``endpoint`` quickly (short batch delay and metric interval)."""
    return {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_METRIC_EXPORT_INTERVAL": "300",
            "OTEL_SERVICE_NAME": "bridge-under-test", "OTEL_TRACES_SAMPLER": "parentbased_always_on", **extra}


def chain(spans: list[Span], span_id: str) -> list[Span]:
    """``span_id``'s span and its ancestors among ``spans``, innermost first."""
    by_id = {s.span_id: s for s in spans}
    out: list[Span] = []
    current = by_id.get(span_id)
    while current is not None and len(out) < 64:
        out.append(current)
        current = by_id.get(current.parent_id)
    return out

"""The OpenTelemetry shell: SDK set-up from the standard ``OTEL_*`` variables, and the traced call of the observed
upstream (``mcp_eras.bridge.layers.observe``).

Per relayed request (the observation point the Prometheus figures are taken at, so both count the same calls):

* a SERVER span ``{mcp.method.name} {target}`` whose parent is the trace context the client sent (``params._meta`` or
  HTTP headers, ``trace_context.extract``); a ``tasks/*`` poll is linked to the span of the call that created the task;
* under it a CLIENT span for the request to the upstream; its context replaces the client's in the request's
  ``_meta`` (both eras) and in ``CallContext.trace`` (the HTTP headers of an HTTP upstream);
* an ``input_required`` answer is an event naming the methods the client is asked for; the retry of a 2026 client
  carries the same ``traceparent`` and so joins the same trace, and a 2025 client's call driven through rounds by the
  bridge keeps its own trace context in every round's ``_meta``;
* ``mcp.server.operation.duration`` and ``mcp.client.operation.duration`` histograms (seconds) and the era census
  counter ``mcp_eras.requests`` (client era x upstream era x method), recorded where the Prometheus figures are.

Span attributes never hold arguments, results or tokens (arguments only with ``MCP_ERAS_OTEL_ARGUMENTS=1``).
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import logging
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.metrics import Observation
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.metrics.view import ExplicitBucketHistogramAggregation, View
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, SpanKind, TraceFlags, TraceState

from mcp_eras.bridge.core import CallContext, Emit
from mcp_eras.bridge.translate import trace_context as tc
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.outcomes import outcome_of

log = logging.getLogger("mcp_bridge.telemetry")

SERVER_DURATION = "mcp.server.operation.duration"
CLIENT_DURATION = "mcp.client.operation.duration"
CENSUS = "mcp_eras.requests"
DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
"""The bucket boundaries the MCP conventions advise for both duration histograms (docs/gen-ai/mcp.md §Metrics)."""
MAX_TASK_LINKS = 4096
"""Span contexts of task-creating calls kept for linking their polls (the oldest are forgotten first)."""
SCOPE = "mcp_eras.bridge"

Record = Callable[[tuple[str, ...], tuple[str, ...], float], None]
Call = Callable[[Message, CallContext, Emit], Awaitable[Message]]


def from_environment(instance: str | None = None) -> tuple[TracerProvider, MeterProvider]:
    """Providers exporting over OTLP/HTTP, each part configured by the SDK's own ``OTEL_*`` handling: endpoint and
    headers (``OTEL_EXPORTER_OTLP_*``), service name and resource (``OTEL_SERVICE_NAME``, default ``mcp-bridge``;
    ``OTEL_RESOURCE_ATTRIBUTES``), sampler (``OTEL_TRACES_SAMPLER``/``_ARG``), batching (``OTEL_BSP_*``), metric
    export interval (``OTEL_METRIC_EXPORT_INTERVAL``)."""
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    protocol = os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    if protocol != "http/protobuf":
        log.warning("OTEL_EXPORTER_OTLP_PROTOCOL=%s: the bridge exports http/protobuf only", protocol)
    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):  # (no OTEL_SERVICE_NAME given)
        resource = resource.merge(Resource({"service.name": "mcp-bridge"}))
    if instance and "service.instance.id" not in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", ""):  # (its --instance-id)
        resource = resource.merge(Resource({"service.instance.id": instance}))
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    views = [View(instrument_name=name, aggregation=ExplicitBucketHistogramAggregation(DURATION_BUCKETS))
             for name in (SERVER_DURATION, CLIENT_DURATION)]
    meter_provider = MeterProvider(resource=resource, metric_readers=[PeriodicExportingMetricReader(OTLPMetricExporter())],
                                   views=views)
    return tracer_provider, meter_provider


def parent_context(fields: dict[str, str]) -> otel_context.Context | None:
    """The client's span as the remote parent of the bridge's server span, None when it sent none."""
    parent = tc.parse_traceparent(fields.get(tc.TRACEPARENT))
    if parent is None:
        return None
    state = tc.parse_tracestate(fields.get(tc.TRACESTATE)) or []
    span_context = SpanContext(parent.trace_id, parent.span_id, is_remote=True, trace_flags=TraceFlags(parent.flags),
                               trace_state=TraceState(state))
    return trace.set_span_in_context(NonRecordingSpan(span_context))


class Telemetry:
    """Tracer, instruments and task links of one bridge process."""

    def __init__(self, tracer_provider: TracerProvider, meter_provider: MeterProvider, transport: str = "tcp",
                 with_arguments: bool = False, server: str | None = None) -> None:
        from mcp_eras.bridge.clikit import version

        self.tracer_provider, self.meter_provider = tracer_provider, meter_provider
        self.tracer = tracer_provider.get_tracer(SCOPE, version())
        meter = meter_provider.get_meter(SCOPE, version())
        self.server_duration = meter.create_histogram(SERVER_DURATION, unit="s",
                                                      description="Duration of MCP requests the bridge served.")
        self.client_duration = meter.create_histogram(CLIENT_DURATION, unit="s",
                                                      description="Duration of the bridge's MCP requests to the upstream.")
        self.census: dict[tuple[str, str, str], int] = {}
        """Relayed requests by (client era, upstream era, method): a dict increment per call, read by the observable
        counter at export time (a synchronous counter would cost an attribute check per call)."""
        meter.create_observable_counter(CENSUS, [self._census], unit="{request}",
                                        description="Relayed requests by client era, upstream era and method.")
        self.transport, self.with_arguments, self.server = transport, with_arguments, server
        self.task_links: OrderedDict[str, SpanContext] = OrderedDict()
        self._bound: dict[tuple[Any, ...], Bound] = {}
        atexit.register(self.shutdown)

    def shutdown(self) -> None:
        """Export what is pending and stop (idempotent)."""
        for provider in (self.tracer_provider, self.meter_provider):
            try:
                provider.shutdown()
            except Exception:  # noqa: BLE001 - exporting at exit must not fail the exit
                log.debug("telemetry shutdown failed", exc_info=True)

    def _census(self, _options: Any) -> list[Observation]:
        return [Observation(count, {"mcp_eras.client.era": client, "mcp_eras.upstream.era": upstream, "mcp.method.name": method})
                for (client, upstream, method), count in list(self.census.items())]

    @staticmethod
    def current_ids() -> tuple[str, str] | None:
        """(trace_id, span_id) of the active span in hex, for log lines; None outside a span."""
        span_context = trace.get_current_span().get_span_context()
        if not span_context.is_valid:
            return None
        return f"{span_context.trace_id:032x}", f"{span_context.span_id:016x}"

    def _links(self, request: Message) -> list[Link] | None:
        task_id = tc.polled_task_id(request)
        found = self.task_links.get(task_id) if task_id is not None else None
        return [Link(found, {"mcp_eras.link": "task"})] if found is not None else None

    def _remember_task(self, response: Message, span_context: SpanContext) -> None:
        task_id = tc.created_task_id(response)
        if task_id is None:
            return
        self.task_links[task_id] = span_context
        while len(self.task_links) > MAX_TASK_LINKS:
            self.task_links.popitem(last=False)

    async def forwarded(self, owner: str, request: Message, ctx: CallContext,
                        forward: Callable[[Message, CallContext], Awaitable[Message]]) -> Message:
        """A call this instance of a scaled-out bridge forwards to the instance ``owner`` that holds its state (an MRTR
        retry, a task poll): a CLIENT span continuing the caller's trace context, handed on in the forwarded request so
        the owner's server span continues the same trace (``mcp_eras.bridge.layers.cluster``)."""
        fields = tc.extract(request, ctx.trace)
        attrs = {**tc.request_attributes(request, str(ctx.client_era), "forwarded", self.transport, server=self.server),
                 "mcp_eras.forward.instance": owner}
        span = self.tracer.start_span(f"forward {tc.span_name(request)}", parent_context(fields), SpanKind.CLIENT, attrs)
        token = otel_context.attach(trace.set_span_in_context(span))
        response: Message | None = None
        failure: str | None = None
        try:
            request, ctx = _handed_on(request, ctx, fields, span)
            response = await forward(request, ctx)
            return response
        except asyncio.CancelledError:
            failure = "cancelled"
            raise
        except Exception as exc:
            failure = tc.exception_type(type(exc))
            raise
        finally:
            done = tc.response_attributes(response, failure)
            span.set_attributes(done)
            if "error.type" in done:
                span.set_status(trace.StatusCode.ERROR, tc.error_message(response))
            otel_context.detach(token)
            span.end()

    def _finish(self, server: Any, client: Any, done: dict[str, Any], response: Message | None) -> None:
        """End a recorded call's spans with what its answer adds (a failure: status ERROR, described by the JSON-RPC
        error's message, docs/gen-ai/mcp.md §Client and §Server "Span status")."""
        description = tc.error_message(response) if "error.type" in done else None
        for span in (client, server):
            span.set_attributes(done)
            if "error.type" in done:
                span.set_status(trace.StatusCode.ERROR, description)
        if "mcp_eras.input.methods" in done:
            server.add_event("mcp_eras.input_required", {"mcp_eras.input.methods": done["mcp_eras.input.methods"]})
        if response is not None:
            self._remember_task(response, server.get_span_context())
        client.end()
        server.end()

    def _bind(self, key: tuple[Any, ...], front: dict[str, Any], endpoint: dict[str, Any]) -> Bound:
        """The ``Bound`` of one (method, tool, prompt, client era, upstream era, server, upstream), kept while
        fewer than ``MAX_BOUND`` are (tool and prompt names come from clients: beyond, each call makes its own)."""
        method, tool, prompt, client_era, upstream_era, server_name = key[:6]
        method = str(method or "unknown")
        bound = Bound(tc.span_name_of(method, tool, prompt),
                      {**tc.bounded_attributes(method, tool, prompt, client_era, client_era, upstream_era, server_name),
                       **front},
                      {**tc.bounded_attributes(method, tool, prompt, upstream_era, client_era, upstream_era, server_name),
                       **endpoint})
        if len(self._bound) < MAX_BOUND:
            self._bound[key] = bound
        return bound

    def upstream_session(self, traceparent: str, session_id: str) -> None:
        """``mcp.session.id`` of the upstream's session on the client span that sent ``traceparent`` (a 2025 server on
        Streamable HTTP names its session, 2025-11-25 basic/transports.mdx §Session Management): set only when that
        span is the current one and records, so no other call's span is touched."""
        span = trace.get_current_span()
        if span.is_recording() and traceparent[36:52] == f"{span.get_span_context().span_id:016x}":
            span.set_attribute("mcp.session.id", session_id)

    def traced_call(self, inner: Any, clock: Callable[[], float], record: Record | None, server: str | None = None,
                    target: Any = None) -> Call:
        """``inner.call`` in a server span and a client span, recording the Prometheus figures (``record``, None when
        the caller records them itself) and the OpenTelemetry ones from the same start time and outcome. ``server``:
        the fleet server's name (``mcp_eras.server``); ``target``: the upstream's ``Target`` (its URL, or a command for
        a stdio child) for the client span's network attributes, None when not known.

        Per call, a span the sampler drops costs its start and the two histogram records: the attributes that are the
        same for every call of one method and target are built once (``Bound``), the per-call ones only for a span that
        records."""
        tracer, server_duration, client_duration, census = self.tracer, self.server_duration, self.client_duration, self.census
        server_name = server or self.server
        front = tc.front_attributes(self.transport)
        url = getattr(target, "url", None) or None
        endpoint = tc.endpoint_attributes(url, known=target is not None)
        upstream = url or ("stdio" if target is not None else None)  # (in the key: what ``endpoint`` was made from)
        bound_sets, bind, with_arguments = self._bound, self._bind, self.with_arguments

        async def call(request: Message, ctx: CallContext, emit: Emit) -> Message:
            started = clock()
            client_era, upstream_era = str(ctx.client_era), str(inner.era or "unknown")
            method = request.get("method")
            tool, prompt, uri = tc.target_of(request)
            key = (method, tool, prompt, client_era, upstream_era, server_name, upstream)
            bound = bound_sets.get(key) or bind(key, front, endpoint)
            fields = tc.extract(request, ctx.trace)
            server = tracer.start_span(bound.name, parent_context(fields), SpanKind.SERVER, bound.server_attrs,
                                       self._links(request))
            # A span the sampler dropped gets no client span and is not made current (nothing would record either).
            client = token = None
            if server.is_recording():
                per_call = tc.call_attributes(request, uri, ctx.session_id, with_arguments)
                server.set_attributes(per_call)
                per_call.pop("mcp.session.id", None)  # (the client's session is not the upstream's: upstream_session)
                client = tracer.start_span(bound.name, trace.set_span_in_context(server), SpanKind.CLIENT,
                                           {**bound.client_attrs, **per_call})
                token = otel_context.attach(trace.set_span_in_context(client))
            response: Message | None = None
            failure: str | None = None
            outcome = "failed"
            sent = clock()
            try:
                request, ctx = _handed_on(request, ctx, fields, client)
                sent = clock()
                response = await inner.call(request, ctx, emit)
                outcome = outcome_of(response)
                return response
            except asyncio.CancelledError:
                outcome, failure = "cancelled", "cancelled"
                raise
            except Exception as exc:
                failure = tc.exception_type(type(exc))
                raise
            finally:
                ended = clock()
                if record is not None:
                    record((client_era, upstream_era, outcome), (client_era,), ended - started)
                if client is not None:
                    done = tc.response_attributes(response, failure)
                    self._finish(server, client, done, response)
                    otel_context.detach(token)  # type: ignore[arg-type]
                error = tc.error_type(response, failure)
                server_measured, client_measured = bound.measured(error, tc.status_code(response) if error else None)
                server_duration.record(ended - started, server_measured)
                client_duration.record(ended - sent, client_measured)
                census_key = (client_era, upstream_era, bound.server_attrs["mcp.method.name"])
                census[census_key] = census.get(census_key, 0) + 1

        return call


MAX_BOUND = 4096
"""Attribute sets kept built (``Telemetry._bind``): one per method, tool or prompt name, eras, server and upstream."""
MAX_OUTCOMES = 32
"""Metric attribute sets kept per ``Bound``: one per (error type, JSON-RPC code) met, success included."""


class Bound:
    """What every call of one (method, target, eras, server, upstream) shares: the span name, the attributes both spans
    start with, and the two histograms' attribute sets by outcome, made once (the SDK copies what it keeps)."""

    __slots__ = ("client_attrs", "name", "outcomes", "server_attrs")

    def __init__(self, name: str, server_attrs: dict[str, Any], client_attrs: dict[str, Any]) -> None:
        self.name, self.server_attrs, self.client_attrs = name, server_attrs, client_attrs
        self.outcomes: dict[tuple[str | None, str | None], tuple[dict[str, Any], dict[str, Any]]] = {}

    def measured(self, error: str | None, code: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """(server histogram attributes, client histogram attributes) of a call that ended with ``error``."""
        found = self.outcomes.get((error, code))
        if found is None:
            found = (tc.metric_attributes(self.server_attrs, error, code), tc.metric_attributes(self.client_attrs, error, code))
            if len(self.outcomes) < MAX_OUTCOMES:
                self.outcomes[(error, code)] = found
        return found


def _handed_on(request: Message, ctx: CallContext, fields: dict[str, str], client: Any) -> tuple[Message, CallContext]:
    """The request and context sent upstream: continuing the bridge's client span when it records, else the client's
    own trace context as it came (moved into ``_meta`` when it came as headers only)."""
    if client is not None and client.is_recording():
        span_context = client.get_span_context()
        out = tc.child_fields(fields, span_context.trace_id, span_context.span_id, int(span_context.trace_flags))
        return tc.inject(request, out), dataclasses.replace(ctx, trace=out)
    if fields and ctx.trace and tc.extract(request) != fields:
        return tc.inject(request, fields), ctx
    return request, ctx

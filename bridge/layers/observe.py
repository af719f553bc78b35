"""Health, readiness and metrics of single-server mode (``mcp-bridge serve --upstream/-- COMMAND``).

    /healthz   200 {"status": "ok", ...} while the upstream answers; 503 {"status": "down", "reason": ...}
               while it cannot be reached (checked on demand, at most once per ``check_interval``)
    /readyz    the same check, for load balancers: 200 "ready" or 503 with the reason (scaled out: also while the
               shared store does not answer; /healthz then says "degraded" and shows the store's state)
    /metrics   Prometheus text: requests by client era, upstream era and outcome, call latency, upstream_up

The metrics registry and text rendering are fleet mode's (``mcp_eras.bridge.fleet.metrics``): one format,
one implementation. Also here: an optional Host-header allow-list for the HTTP listener (the
DNS-rebinding defence the 2025-11-25 and 2026-07-28 transports ask of local servers, basic/transports
§Security Warning), used when the bridge binds a loopback address or is given ``--allow-host``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from mcp_eras.bridge import telemetry
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, discard, find
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.layers.cluster import ClusterUpstream
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate import outcomes as oc
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.outcomes import fleet_health_status, outcome_of
from mcp_eras.bridge.upstream.factory import Target, discover_request

log = logging.getLogger("mcp_bridge.observe")

METRICS_MEDIA_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def register_metrics(metrics: Metrics) -> None:
    metrics.counter("requests_total", "Requests relayed to the upstream, by client era, upstream era and outcome.",
                    ("client_era", "upstream_era", "outcome"))
    metrics.histogram("request_duration_seconds", "Time to the final response of one relayed request.", ("client_era",))
    metrics.counter("health_checks_total", "Upstream reachability checks, by result.", ("result",))

__all__ = ["ObservedUpstream", "Observer", "cluster_metrics", "fleet_health_status", "fleet_readyz", "observe", "outcome_of",
           "register_metrics"]


class ObservedUpstream(Upstream):
    """Counts every call of the wrapped upstream; everything else is delegated unchanged."""

    wraps = True

    def __init__(self, inner: Upstream, metrics: Metrics, clock: Callable[[], float] = time.monotonic,
                 target: Target | None = None) -> None:
        self.inner: Upstream = inner
        self.metrics = metrics
        self.clock = clock
        self.target = target
        """What the upstream is (its URL or command), for the network attributes of OpenTelemetry client spans."""
        try:
            self._record = metrics.recorder("requests_total", "request_duration_seconds")
        except KeyError:  # (families not registered yet: ``register_metrics``)
            register_metrics(metrics)
            self._record = metrics.recorder("requests_total", "request_duration_seconds")
        self.call = self._counted_call()  # type: ignore[method-assign]

    @property  # type: ignore[override]
    def era(self) -> Any:
        return self.inner.era

    async def start(self) -> None:
        await self.inner.start()

    async def discover(self, ctx: CallContext) -> Message:
        return await self.inner.discover(ctx)

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        """``inner.call``, counted. Each instance holds this as its own ``call`` (``_counted_call``)."""
        return await self.__dict__["call"](request, ctx, emit)  # type: ignore[no-any-return]

    def _counted_call(self) -> Callable[[Message, CallContext, Emit], Awaitable[Message]]:
        """``call`` with what it reads of this object taken once (this runs on every relayed call: no attribute reads
        of the wrapper, no bound method made per call). The instance keeps this as its ``call``."""
        inner, clock, record = self.inner, self.clock, self._record
        traced = telemetry.current()
        if traced is not None:  # OpenTelemetry on (``--otel``): spans and the MCP metrics from this same observation
            return traced.traced_call(inner, clock, record, target=self.target)

        async def call(request: Message, ctx: CallContext, emit: Emit) -> Message:
            started = clock()
            outcome = "failed"
            try:
                response = await inner.call(request, ctx, emit)
                outcome = outcome_of(response)
                return response
            except asyncio.CancelledError:
                outcome = "cancelled"
                raise
            finally:
                era = ctx.client_era
                record((era, str(inner.era or "unknown"), outcome), (era,), clock() - started)

        return call

    async def aclose(self) -> None:
        await self.inner.aclose()

    def status(self) -> dict[str, Any]:
        return self.inner.status()


class Observer:
    """Answers /healthz, /readyz and /metrics for one upstream."""

    def __init__(self, upstream: Upstream, target: Target, settings: Settings, metrics: Metrics,
                 check_interval: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.upstream = upstream
        self.target = target
        self.settings = settings
        self.metrics = metrics
        self.check_interval = check_interval
        self.clock = clock
        self.last: tuple[float, bool, str] | None = None
        self._lock = asyncio.Lock()

    async def check(self) -> tuple[bool, str]:
        """(reachable, reason); at most one real check per ``check_interval``."""
        async with self._lock:
            now = self.clock()
            if self.last is not None and not oc.check_due(self.last[0], now, self.check_interval):
                return self.last[1], self.last[2]
            try:
                ok, reason = await asyncio.wait_for(self._probe(), self.settings.probe_timeout)
            except TimeoutError:
                ok, reason = False, f"no answer from the upstream within {self.settings.probe_timeout:g}s"
            except Exception as exc:  # noqa: BLE001 - any failure is the reason
                ok, reason = False, str(exc) or exc.__class__.__name__
            if self.last is None or self.last[1] != ok:
                log.log(logging.INFO if ok else logging.WARNING, "upstream %s", "reachable" if ok else f"unreachable: {reason}")
            self.last = (self.clock(), ok, reason)
            self.metrics.inc("health_checks_total", {"result": "ok" if ok else "down"})
            return ok, reason

    async def _probe(self) -> tuple[bool, str]:
        if self.target.url:
            # Reachability of an HTTP upstream: any HTTP answer below 500 to a 2026 server/discover
            # (a 2025 server answers 400/404/405: it is up, just older).
            headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                       "MCP-Protocol-Version": eras.MODERN, "Mcp-Method": "server/discover", **self.target.headers}
            async with httpx.AsyncClient(timeout=self.settings.probe_timeout) as client:
                try:
                    async with client.stream("POST", self.target.url, content=jsonrpc.dumps(discover_request(self.settings)),
                                             headers=headers) as resp:
                        status = resp.status_code
                except httpx.HTTPError as exc:
                    return False, f"cannot reach {self.target.url}: {exc.__class__.__name__}: {exc}".rstrip(": ")
            return oc.http_reachability(self.target.url, status)
        # A stdio child: a real round trip through the upstream (it respawns the child when it died).
        return oc.answer_reachability(await self.upstream.call(discover_request(self.settings, "mcp-bridge-health"),
                                                               CallContext(), discard))

    def _status(self) -> dict[str, Any]:
        try:
            return self.upstream.status()
        except Exception as exc:  # noqa: BLE001 - a status bug must not break the probe
            return {"error": str(exc)}

    async def healthz(self, request: Request) -> Response:
        status = self._status()  # the state when the request came, before the check's round trip
        ok, reason = await self.check()
        body, code = oc.health_body(ok, reason, self.target.describe(), status)
        cluster = find(self.upstream, ClusterUpstream)
        if cluster is not None:
            oc.with_store(body, cluster.store.name, cluster.store_ok)
        return JSONResponse(body, status_code=code)

    async def readyz(self, request: Request) -> Response:
        ok, reason = await self.check()
        cluster = find(self.upstream, ClusterUpstream)
        if cluster is not None:
            ok, reason = oc.ready_with_store(ok, reason, cluster.store.name, cluster.store_ok)
        text, code = oc.readiness(ok, reason)
        return PlainTextResponse(text, status_code=code)

    async def metrics_endpoint(self, request: Request) -> Response:
        cluster = find(self.upstream, ClusterUpstream)
        text = self.metrics.render([
            *oc.upstream_families(self.last is not None and self.last[1], self.upstream.era),
            *cluster_metrics({"": cluster} if cluster is not None else {}),
        ])
        return PlainTextResponse(text, media_type=METRICS_MEDIA_TYPE)

    def routes(self) -> list[Route]:
        return [Route("/healthz", self.healthz, methods=["GET"]), Route("/readyz", self.readyz, methods=["GET"]),
                Route("/metrics", self.metrics_endpoint, methods=["GET"])]


def cluster_metrics(clusters: dict[str, ClusterUpstream]) -> list[oc.Family]:
    """Prometheus families of the cluster counters, one sample per instance (and fleet server: the key of
    ``clusters``; "" in single-server mode)."""
    return oc.cluster_families({name: (c.instance_id, c.counters()) for name, c in clusters.items()})


def observe(upstream: Upstream, target: Target, settings: Settings) -> tuple[ObservedUpstream, Observer]:
    metrics = Metrics()
    register_metrics(metrics)
    wrapped = ObservedUpstream(upstream, metrics, target=target)
    return wrapped, Observer(wrapped, target, settings, metrics)


# --- fleet ------------------------------------------------------------------------------------------


async def fleet_readyz(router: Any, request: Request) -> Response:
    """Fleet /readyz: 200 once the config is loaded, every server has made its first start attempt and every
    scale-out server's shared store answers."""
    pending = [] if router.config is None else [
        name for name, entry in router.entries.items() if entry.started is not None and not entry.started.done()]
    no_store = oc.store_down({name: e.cluster.store_ok for name, e in router.entries.items() if e.cluster is not None})
    text, code = oc.fleet_readiness(router.config is not None, pending, no_store)
    return PlainTextResponse(text, status_code=code)

"""One fleet server as a stable ``Upstream``: the fronts keep one object for the server's lifetime,
while behind it the delegate is replaced on reload or when the server's era changes.

* **Generations.** Each delegate (a legacy or modern upstream from the factory) lives in a ``Slot``
  that counts its in-flight calls. New calls always take the newest slot; a replaced slot is drained
  (its in-flight calls finish, bounded by ``drain_timeout``) and then closed.
* **Era cache.** With ``era = "auto"`` the era is probed when the slot is first used, trusted for
  ``era_cache_ttl`` seconds, then re-probed in the background; an era-typical failure (an error a
  server of the other era would give) triggers an early re-probe. A changed era starts a new slot.
* **Decoration.** Every call is timed and counted (``Metrics``) and W3C trace context is copied into
  the request ``_meta`` for legacy upstreams (2026 upstreams receive it as HTTP headers).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp_eras.bridge import telemetry
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, UpstreamError
from mcp_eras.bridge.fleet.history import EraHistory
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.layers.tasks import with_tasks
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate import generations as gen
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.outcomes import era_typical_failure, server_state, trace_id, with_trace_meta
from mcp_eras.bridge.translate.outcomes import result_kind as outcome_of
from mcp_eras.bridge.upstream.factory import ProbeResult, Target, legacy_upstream, modern_upstream, probe
from mcp_eras.bridge.upstream.modern import ModernStdioUpstream

log = logging.getLogger("mcp_bridge.fleet")


Prober = Callable[..., Any]
"""``probe``'s signature: (target, settings, keep_child=False, confirm=True) -> ProbeResult."""


def register_metrics(metrics: Metrics) -> None:
    metrics.counter("requests_total", "Requests served, by server, client era, upstream era, method and outcome.",
                    ("server", "client_era", "upstream_era", "method", "outcome"))
    metrics.histogram("request_duration_seconds", "Upstream call latency.", ("server", "method"))
    metrics.counter("era_probes_total", "Era probes, by server and detected era.", ("server", "era"))
    metrics.counter("upstream_swaps_total", "Delegate replacements, by server and reason (reload, era).", ("server", "reason"))
    metrics.counter("reloads_total", "Config reloads, by outcome.", ("outcome",))


@dataclass(eq=False)
class Slot:
    """One delegate generation."""

    generation: int
    target: Target
    settings: Settings
    upstream: Upstream | None = None
    building: Upstream | None = None
    """A delegate whose ``start()`` is under way (closed with the slot if it never finishes)."""
    probe: ProbeResult | None = None
    probed_at: float = 0.0
    inflight: int = 0
    streams: int = 0
    """Open ``subscriptions/listen`` calls: long-lived, so they do not hold a replaced generation open."""
    retired: bool = False
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def __post_init__(self) -> None:
        self.idle.set()


class ManagedUpstream(Upstream):
    wraps = True

    def __init__(self, name: str, target: Target, settings: Settings, metrics: Metrics,
                 drain_timeout: float = 60.0, prober: Prober = probe) -> None:
        self.name = name
        self.metrics = metrics
        self.drain_timeout = drain_timeout
        self.prober = prober
        self._generations = 0
        self.slot = self._new_slot(target, settings)
        self.draining: set[Slot] = set()
        self.retired_restarts = 0
        self.last_error: str | None = None
        self.last_ok: float | None = None
        self._reprobe_task: asyncio.Task[None] | None = None
        self._last_reprobe = 0.0
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self.history: EraHistory | None = None
        """Where each request is also counted per minute for the dashboard (set by the fleet router)."""
        self.on_delegate: Callable[[Upstream], None] | None = None
        """Called with each new delegate (a scaled-out fleet puts its task records on the shared store)."""

    @property
    def era(self) -> eras.Era:  # type: ignore[override]
        up = self.slot.upstream
        return up.era if up is not None else eras.LEGACY

    @property
    def settings(self) -> Settings:
        return self.slot.settings

    @property  # type: ignore[override]
    def inner(self) -> Upstream | None:  # type: ignore[override]
        """The current generation's upstream once it is built (None before: its era may not be known yet)."""
        return self.slot.upstream

    def _new_slot(self, target: Target, settings: Settings) -> Slot:
        self._generations += 1
        return Slot(self._generations, target, settings)

    # --- delegate resolution ------------------------------------------------------------------------

    async def _ready(self, slot: Slot) -> Upstream:
        if slot.upstream is not None:
            return slot.upstream
        async with slot.lock:
            if slot.upstream is not None:
                return slot.upstream
            era = slot.settings.upstream_era
            transport: str | None = None
            result: ProbeResult | None = None
            if era == "auto":
                # keep_child: a stdio server's probed child becomes the delegate's (no second spawn). No caller is
                # known at load, so a provisional 2025 verdict is not confirmed with the bridge's own identity (that
                # child could serve no client): the first client's session initializes it, and a refusal re-probes.
                result = await self.prober(slot.target, slot.settings, keep_child=True, confirm=False)
                slot.probe, slot.probed_at = result, time.monotonic()
                assert result.era is not None
                era = result.era
                transport = result.transport if slot.target.url else None
                self.metrics.inc("era_probes_total", {"server": self.name, "era": era})
                log.info("server %s speaks %s", self.name, era,
                         extra={"event": "era_detected", "server": self.name, "era": era, "transport": result.transport})
            if era == eras.MODERN:
                up = modern_upstream(slot.target, slot.settings, result.child if result is not None else None)
                _restrict_env(up, slot.target)
            else:
                up = legacy_upstream(slot.target, slot.settings, transport, adopt=result)
            up = with_tasks(up, slot.settings)  # the tasks extension across the eras, as in single-server mode
            if self.on_delegate is not None:
                self.on_delegate(up)
            slot.building = up
            try:
                await up.start()
            except BaseException:
                with contextlib.suppress(Exception):
                    await up.aclose()
                raise
            finally:
                slot.building = None
            if slot.retired and slot.inflight == 0:
                # replaced or closed while starting: nobody will use it
                with contextlib.suppress(Exception):
                    await up.aclose()
                raise UpstreamError(f"upstream {self.name} was replaced while starting")
            slot.upstream = up
            return up

    async def start(self) -> None:
        await self._ready(self.slot)

    async def discover(self, ctx: CallContext) -> Message:
        return await (await self._ready(self.slot)).discover(ctx)

    # --- calls --------------------------------------------------------------------------------------

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        method = str(request.get("method"))
        stream = method == "subscriptions/listen"
        slot = self.enter(stream)
        started = time.monotonic()
        outcome = "exception"
        up_era = "unknown"
        try:
            try:
                upstream = await self._ready(slot)
            except (UpstreamError, OSError) as exc:
                self.last_error = str(exc)
                self._maybe_reprobe(force=True)
                response = jsonrpc.error_response(request.get("id"), jsonrpc.INTERNAL_ERROR, f"Upstream {self.name} unavailable: {exc}")
                outcome = "unavailable"
                return response
            up_era = upstream.era
            wire = request if upstream.era == eras.MODERN else with_trace_meta(request, ctx.trace)
            traced = telemetry.current()  # (OpenTelemetry on: this server's spans and MCP metrics, issue #32)
            call = upstream.call if traced is None else traced.traced_call(upstream, time.monotonic, None, self.name,
                                                                              slot.target)
            response = await call(wire, ctx, emit)
            outcome = outcome_of(response)
            if outcome == "error" and era_typical_failure(response):
                self._maybe_reprobe()
            elif outcome != "error":
                self.last_ok, self.last_error = time.time(), None
            self._maybe_expire(slot)
            return response
        except asyncio.CancelledError:
            outcome = "cancelled"
            raise
        finally:
            self.leave(slot, stream)
            self.record(method, ctx.client_era, up_era, outcome, time.monotonic() - started, ctx.trace)

    def enter(self, stream: bool = False) -> Slot:
        """Count a call on the current generation (so a reload drains it before closing)."""
        slot = self.slot
        if stream:
            slot.streams += 1
        else:
            slot.inflight += 1
            slot.idle.clear()
        return slot

    @staticmethod
    def leave(slot: Slot, stream: bool = False) -> None:
        if stream:
            slot.streams -= 1
            return
        slot.inflight -= 1
        if slot.inflight == 0:
            slot.idle.set()

    def record(self, method: str, client_era: str, upstream_era: str, outcome: str, elapsed: float,
               trace: dict[str, str] | None = None) -> None:
        self.metrics.inc("requests_total", {"server": self.name, "client_era": client_era, "upstream_era": upstream_era,
                                            "method": method, "outcome": outcome})
        self.metrics.observe("request_duration_seconds", {"server": self.name, "method": method}, elapsed)
        if self.history is not None:
            self.history.add(time.time(), client_era, upstream_era)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("call", extra={"event": "call", "server": self.name, "method": method, "outcome": outcome,
                                     "client_era": client_era, "upstream_era": upstream_era, "ms": round(elapsed * 1000, 1),
                                     "trace_id": trace_id(trace or {})})

    async def legacy_http_url(self) -> str | None:
        """The upstream URL when the current delegate is a 2025 Streamable HTTP server (2025 clients may
        then be passed through untranslated), else None. Resolves the era first if needed."""
        slot = self.slot
        if not slot.target.url:
            return None
        try:
            upstream = await self._ready(slot)
        except (UpstreamError, OSError):
            return None
        return gen.passthrough_url(slot.target.url, upstream.era, slot.probe.transport if slot.probe is not None else None,
                                   slot.target.transport)

    # --- era cache ----------------------------------------------------------------------------------

    def _maybe_expire(self, slot: Slot) -> None:
        if gen.era_stale(slot.probe is not None, slot.probed_at, time.monotonic(), slot.settings.era_cache_ttl):
            self._maybe_reprobe(force=True)

    def _maybe_reprobe(self, force: bool = False) -> None:
        slot = self.slot
        running = self._reprobe_task is not None and not self._reprobe_task.done()
        if not gen.may_reprobe(slot.settings.upstream_era == "auto", slot.upstream is not None, self._closed, running):
            return
        now = time.monotonic()
        if not gen.reprobe_due(force, now, self._last_reprobe):
            return
        self._last_reprobe = now
        self._reprobe_task = asyncio.create_task(self._reprobe(slot))

    async def _reprobe(self, slot: Slot) -> None:
        try:
            result: ProbeResult = await self.prober(slot.target, slot.settings)
        except Exception as exc:  # noqa: BLE001 - unreachable is not era evidence
            log.warning("server %s: re-probe failed: %s", self.name, exc, extra={"event": "reprobe_failed", "server": self.name})
            return
        assert result.era is not None
        self.metrics.inc("era_probes_total", {"server": self.name, "era": result.era})
        if slot is not self.slot:
            return
        slot.probed_at = time.monotonic()
        current = slot.upstream.era if slot.upstream is not None else None
        transports = (slot.probe.transport, result.transport) if slot.target.url and slot.probe else None
        if gen.verdict_changed(current, result.era, transports):
            log.warning("server %s changed era: %s -> %s", self.name, current, result.era,
                        extra={"event": "era_changed", "server": self.name, "old": current, "new": result.era})
            self.replace(slot.target, slot.settings, reason="era")

    # --- reload -------------------------------------------------------------------------------------

    def replace(self, target: Target, settings: Settings, reason: str = "reload") -> None:
        """New calls go to a fresh delegate; the old one finishes its in-flight calls, then closes."""
        old = self.slot
        self.slot = self._new_slot(target, settings)
        self.metrics.inc("upstream_swaps_total", {"server": self.name, "reason": reason})
        log.info("server %s: generation %d replaces %d (%s)", self.name, self.slot.generation, old.generation, reason,
                 extra={"event": "swap", "server": self.name, "generation": self.slot.generation, "reason": reason})
        self._retire(old)

    def _retire(self, slot: Slot) -> None:
        slot.retired = True
        self.draining.add(slot)
        task = asyncio.create_task(self._drain(slot))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drain(self, slot: Slot) -> None:
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(slot.idle.wait(), self.drain_timeout)
            if slot.inflight:
                log.warning("server %s: closing generation %d with %d calls still in flight", self.name, slot.generation, slot.inflight)
        finally:
            self.retired_restarts += _restarts(slot.upstream)
            self.draining.discard(slot)
            for up in (slot.upstream, slot.building):
                if up is not None:
                    with contextlib.suppress(Exception):
                        await up.aclose()
            log.info("server %s: generation %d closed", self.name, slot.generation,
                     extra={"event": "drained", "server": self.name, "generation": slot.generation})

    async def aclose(self) -> None:
        self._closed = True
        if self._reprobe_task is not None:
            self._reprobe_task.cancel()
        self.drain_timeout = min(self.drain_timeout, 5.0)
        self._retire(self.slot)
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # --- health -------------------------------------------------------------------------------------

    def restarts(self) -> int:
        return self.retired_restarts + sum(_restarts(s.upstream) for s in (self.slot, *self.draining))

    def parked(self) -> int:
        total = 0
        for s in (self.slot, *self.draining):
            if s.upstream is not None:
                with contextlib.suppress(Exception):
                    total += gen.parked_of(_inner_status(s.upstream))
        return total

    def status(self) -> dict[str, Any]:
        slot = self.slot
        up = slot.upstream
        inner: dict[str, Any] = {}
        if up is not None:
            with contextlib.suppress(Exception):
                inner = up.status()
        return {
            "state": server_state(up is not None, self.last_error),
            "era": up.era if up is not None else None,
            "configured_era": slot.settings.upstream_era,
            "target": slot.target.describe(),
            "generation": slot.generation,
            "inflight": slot.inflight,
            "streams": slot.streams,
            "draining": sorted(s.generation for s in self.draining),
            "restarts": self.restarts(),
            "parked": self.parked(),
            "probed_transport": slot.probe.transport if slot.probe else None,
            "era_age_s": round(time.monotonic() - slot.probed_at, 1) if slot.probe else None,
            "last_error": self.last_error,
            "upstream": inner,
        }

    def pids(self) -> list[int]:
        """Process ids of the current delegate's stdio children (for operators and tests)."""
        up = self.slot.upstream
        if up is None:
            return []
        return gen.pids_of(_inner_status(up))


def _restrict_env(up: Upstream, target: Target) -> None:
    """The factory's modern stdio upstream inherits the bridge's whole environment; honour
    ``env_passthrough`` (``inherit_env=False``) the way the legacy stdio transport does."""
    if target.command and not target.inherit_env and isinstance(up, ModernStdioUpstream):
        up.process.env = {"PATH": os.environ.get("PATH", "")} | dict(target.env)


def _inner_status(up: Upstream) -> dict[str, Any]:
    try:
        return up.status()
    except Exception:  # noqa: BLE001
        return {}


def _restarts(up: Upstream | None) -> int:
    if up is None:
        return 0
    return gen.restarts_of(_inner_status(up))

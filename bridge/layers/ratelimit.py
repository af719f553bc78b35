"""Rate limits per caller and server (issue 34), the I/O half: an ``Upstream`` layer that takes a token from the
caller's bucket before a request goes on, and answers the limit error when there is none.

The decisions are ``mcp_eras.bridge.translate.gateway.ratelimit`` (the bucket, which requests count, the refusal);
the buckets live in the state store (``Store.rate_take``): in this process by default, in Redis with
``--state-store redis://...`` so that every instance behind one load balancer takes from the same bucket.

* The caller is ``CallContext.principal`` (a digest of its credentials; with the resource server on, of the validated
  subject). Callers without one share the server's anonymous bucket (``ratelimit.bucket_key``).
* At the limit: -32000 with ``{"limit": "rate", "retry_after": s}``; the 2026 HTTP front makes it 429 with
  ``Retry-After``. The request never reaches the upstream.
* A store that holds as many buckets as it may (the memory store's caps) and has no idle one to let go: -32000 with
  ``{"limit": "rate_buckets"}`` (503 on the 2026 front).
* A store that fails or does not answer within ``STORE_TIMEOUT`` (never longer than the request's own timeout): the
  request goes on (fail-open), counted in ``rate_limit_store_errors_total`` and logged at most once a minute. A
  limit protects a server from one caller; an unreachable store must not stop every caller (the scale-out paths that
  need the store for correctness still fail closed on their own).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from mcp_eras.bridge.core import CallContext, Emit, Upstream
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.store.base import Store, StoreError, StoreFull
from mcp_eras.bridge.store.open import open_store
from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate.gateway import ratelimit as rl
from mcp_eras.bridge.translate.jsonrpc import Message

log = logging.getLogger("mcp_bridge.ratelimit")

STORE_TIMEOUT = 0.5
"""Seconds one bucket step may take in the store before the request goes on without it."""
FAULT_LOG_INTERVAL = 60.0
"""Seconds between two log lines about a failing store (each fault is counted)."""


def register_metrics(metrics: Metrics) -> None:
    metrics.counter("rate_limited_total", "Requests refused by a rate limit, by server and reason (rate, rate_buckets).",
                    ("server", "reason"))
    metrics.counter("rate_limit_store_errors_total", "Rate-limit steps the store failed (the request went on).",
                    ("server",))


class RateLimitedUpstream(Upstream):
    """Takes a token per counted request from the bucket of (principal, server); everything else is delegated."""

    wraps = True

    def __init__(self, inner: Upstream, store: Store, limit: rl.RateLimit | None, metrics: Metrics, server: str = "",
                 *, request_timeout: float = 300.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.inner: Upstream = inner
        self.store = store
        self.limit = limit
        self.metrics = metrics
        self.server = server
        self.timeout = min(STORE_TIMEOUT, request_timeout)
        self.clock = clock
        self._last_fault_log: float | None = None
        try:
            metrics.totals("rate_limited_total", "server")
        except KeyError:  # (not registered yet: ``register_metrics``)
            register_metrics(metrics)

    @property  # type: ignore[override]
    def era(self) -> Any:
        return self.inner.era

    def configure(self, limit: rl.RateLimit | None) -> None:
        """A new limit (a reload); the buckets stay (a bucket fuller than the new burst is cut on its next step)."""
        self.limit = limit

    async def start(self) -> None:
        try:
            await self.store.start()
        except StoreError as exc:
            self._fault(exc)
        await self.inner.start()

    async def discover(self, ctx: CallContext) -> Message:
        return await self.inner.discover(ctx)

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        limit = self.limit
        if limit is not None and rl.counts(request, ctx.client_era == eras.LEGACY):
            refused = await self._take(request, ctx, limit)
            if refused is not None:
                return refused
        return await self.inner.call(request, ctx, emit)

    async def _take(self, request: Message, ctx: CallContext, limit: rl.RateLimit) -> Message | None:
        """None when the request may go on, else the refusal to answer with."""
        try:
            allowed, retry_after = await self.store.rate_take(rl.bucket_key(self.server, ctx.principal), 1, limit.rate,
                                                              limit.burst, timeout=self.timeout)
        except StoreFull as exc:
            self.metrics.inc("rate_limited_total", {"server": self.server, "reason": rl.BUCKETS_LIMIT})
            return rl.buckets_full(request.get("id"), exc.cap)
        except StoreError as exc:
            self._fault(exc)
            return None
        if allowed:
            return None
        self.metrics.inc("rate_limited_total", {"server": self.server, "reason": rl.RATE_LIMIT})
        return rl.limited(request.get("id"), limit, retry_after)

    def _fault(self, exc: StoreError) -> None:
        self.metrics.inc("rate_limit_store_errors_total", {"server": self.server})
        now = self.clock()
        if self._last_fault_log is None or now - self._last_fault_log >= FAULT_LOG_INTERVAL:
            self._last_fault_log = now
            log.warning("rate limit not applied (requests go on): %s", exc,
                        extra={"event": "rate_limit_store_error", "server": self.server})

    async def roots_changed(self, ctx: CallContext) -> None:
        await self.inner.roots_changed(ctx)

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        finally:
            await self.store.aclose()

    def status(self) -> dict[str, Any]:
        return self.inner.status()


def rate_limited(up: Upstream, limit: rl.RateLimit | None, metrics: Metrics, *, state_store: str = "memory",
                 server: str = "", prefix: str = "mcp-bridge", request_timeout: float = 300.0) -> Upstream:
    """``up`` behind its rate limit, with buckets in ``state_store`` (a store of its own: its own connections);
    ``up`` itself when there is no limit."""
    if limit is None:
        return up
    return RateLimitedUpstream(up, open_store(state_store, prefix), limit, metrics, server, request_timeout=request_timeout)

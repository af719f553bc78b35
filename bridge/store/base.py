"""The shared-state interface of a scaled-out bridge (N instances behind a plain load balancer).

What is shared, and why (see README "Scaling out"):

* parked-call ownership: ``puc`` -> the instance that holds the upstream request (direction A);
* 2025 session facts (negotiated version, client capabilities/info, principal binding) with the idle
  TTL, and their mutable parts (log level, resource subscriptions) (direction B);
* a per-session event stream for ``Last-Event-ID`` replay (2025-11-25 basic/transports.mdx
  §Resumability and Redelivery): one stream per session, never read across sessions;
* caches with a ``ttlMs`` (``server/discover`` results, tool schemas for ``Mcp-Param-*`` headers);
* the instance registry with heartbeats, and announcements between instances (pub/sub).

Values are plain JSON-able data (what ``mcp_eras.bridge.translate`` machines hold); the store decides nothing
about the protocol. Every method may raise ``StoreError`` (the store is unreachable or refused): the
caller turns that into -32603 naming the store; purely local work never touches the store.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from typing import Any

Json = dict[str, Any]

EVENT_ID = re.compile(r"^\d{1,20}-\d{1,20}$")
"""Event ids are ``<ms>-<seq>`` (the Redis stream id format; the memory store mints the same shape)."""


class StoreError(Exception):
    """The shared state store could not serve a request. ``str()`` names the store."""

    def __init__(self, store: str, detail: str) -> None:
        super().__init__(f"state store {store} unavailable: {detail}")
        self.store = store
        self.detail = detail


class StoreFull(StoreError):
    """A bounded store holds as much as it may (``limit`` names the cap) and nothing of it can be let go."""

    def __init__(self, store: str, limit: str, cap: int) -> None:
        super().__init__(store, f"{limit} at the cap ({cap})")
        self.limit = limit
        self.cap = cap


class Subscription(ABC):
    """Messages published on one channel after ``Store.subscribe`` returned, in order."""

    @abstractmethod
    async def get(self, timeout: float | None = None) -> Json | None:
        """The next message, or None when ``timeout`` seconds pass first."""

    @abstractmethod
    async def aclose(self) -> None: ...

    def __aiter__(self) -> AsyncIterator[Json]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Json]:
        while True:
            msg = await self.get()
            if msg is not None:
                yield msg


class Store(ABC):
    """Async shared state. ``name`` identifies it in errors and ``/healthz`` (no credentials)."""

    name: str = "store"
    shared: bool = False
    """Whether other instances see what this one writes (a memory store is per process)."""

    async def start(self) -> None:
        """Connect (idempotent). Raises StoreError when the store cannot be reached."""

    async def aclose(self) -> None:
        """Release connections."""

    # --- parked calls (direction A) ------------------------------------------------------------------

    @abstractmethod
    async def park(self, puc: str, owner: str, ttl_ms: int) -> None:
        """Record that instance ``owner`` holds the parked call ``puc`` (for ``ttl_ms``)."""

    @abstractmethod
    async def parked_owner(self, puc: str) -> str | None:
        """Which instance holds ``puc``, or None when unknown or expired."""

    @abstractmethod
    async def unpark(self, puc: str) -> str | None:
        """Atomically remove the record and return its owner (single use: one caller gets it)."""

    # --- 2025 session facts (direction B) ---------------------------------------------------------------

    @abstractmethod
    async def create_session(self, sid: str, facts: Json, ttl_ms: int, owner: str = "") -> bool:
        """Store the immutable facts of a new session and the instance serving it; False when ``sid``
        already exists."""

    @abstractmethod
    async def session(self, sid: str, ttl_ms: int | None = None) -> Json | None:
        """``{"facts": ..., "owner": str, "state": {...}, "subscriptions": [...]}`` or None (unknown,
        expired or deleted). With ``ttl_ms`` the idle deadline is pushed back (the session was used)."""

    @abstractmethod
    async def claim_session(self, sid: str, expected_owner: str, owner: str) -> bool:
        """Atomically move the session to ``owner`` if ``expected_owner`` still has it (one adopter wins)."""

    @abstractmethod
    async def set_session_state(self, sid: str, key: str, value: Any) -> bool:
        """Set one mutable part (e.g. ``logLevel``); False when the session is gone."""

    @abstractmethod
    async def subscribe_resource(self, sid: str, uri: str, on: bool) -> bool:
        """Add (``on``) or remove a resource subscription; False when the session is gone."""

    @abstractmethod
    async def delete_session(self, sid: str) -> bool:
        """Forget the session and its event stream; True when it existed."""

    # --- per-session event stream (Last-Event-ID) -----------------------------------------------------

    @abstractmethod
    async def append_event(self, sid: str, event: Json, *, max_events: int, retention_ms: int) -> str:
        """Append to the session's stream; returns the event id (``<ms>-<seq>``, increasing)."""

    @abstractmethod
    async def events_after(self, sid: str, last_id: str, *, limit: int) -> list[tuple[str, Json]] | None:
        """Events of *this* session after ``last_id``, oldest first; None when ``last_id`` is
        malformed or no longer retained (the client must not be told it missed nothing)."""

    # --- caches with ttlMs -------------------------------------------------------------------------------

    @abstractmethod
    async def cache_put(self, space: str, key: str, value: Json, ttl_ms: int) -> None: ...

    @abstractmethod
    async def cache_get(self, space: str, key: str) -> Json | None: ...

    @abstractmethod
    async def cache_index(self, space: str, index: str, key: str, ttl_ms: int) -> None:
        """File the cache entry ``key`` under ``index`` (e.g. the task records of one principal), for at least
        ``ttl_ms``."""

    @abstractmethod
    async def cache_listed(self, space: str, index: str, *, limit: int) -> list[Json]:
        """The live cache entries filed under ``index`` (at most ``limit``; entries that lapsed are let go)."""

    # --- instance registry ---------------------------------------------------------------------------------

    @abstractmethod
    async def heartbeat(self, instance: str, info: Json, ttl_ms: int) -> bool:
        """Register or refresh ``instance`` (its record lapses ``ttl_ms`` after the last beat). True when its record
        was there before this beat: False after the record lapsed or the store lost its data (restarted empty), when
        the instance must publish again what it holds."""

    @abstractmethod
    async def instance(self, instance: str) -> Json | None: ...

    @abstractmethod
    async def instances(self) -> dict[str, Json]: ...

    @abstractmethod
    async def forget_instance(self, instance: str) -> None: ...

    # --- announcements -------------------------------------------------------------------------------------

    @abstractmethod
    async def publish(self, channel: str, message: Json) -> int:
        """Send to every current subscriber of ``channel``; returns how many received it."""

    @abstractmethod
    async def subscribe(self, channel: str) -> Subscription: ...

    # --- rate limits ------------------------------------------------------------------------------------

    @abstractmethod
    async def rate_take(self, key: str, cost: float, rate: float, burst: float, *, timeout: float) -> tuple[bool, float]:
        """Take ``cost`` tokens from the bucket ``key`` (``rate`` a second, at most ``burst``; a new bucket is full):
        ``(allowed, retry_after seconds)``, decided by ``mcp_eras.bridge.translate.gateway.ratelimit.take`` in one
        step (no two callers see the same tokens). Answers within ``timeout`` seconds or raises ``StoreError``;
        ``StoreFull`` when a bounded store has no room for another bucket."""

    # --- leases ---------------------------------------------------------------------------------------------

    async def lease(self, name: str, owner: str, ttl_ms: int) -> str:
        """Take the lease ``name`` for ``owner`` when nobody holds it, or extend it when ``owner`` already does (for
        ``ttl_ms`` either way), in one step: returns the holder (``owner`` when it has it). One holder at a time."""
        raise StoreError(self.name, "leases are not supported")

    async def release(self, name: str, owner: str) -> None:
        """Give the lease ``name`` up, if ``owner`` still holds it."""

    def describe(self) -> Json:
        return {"store": self.name, "shared": self.shared}


def newer(event_id: str, other: str) -> bool:
    a, b = event_id.split("-"), other.split("-")
    return (int(a[0]), int(a[1])) > (int(b[0]), int(b[1]))

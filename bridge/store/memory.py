"""The default store: one process, in memory (what a single bridge always did). Nothing is shared, so
``shared`` is False and the scale-out paths (forwarding, announcements to other instances) stay idle.

Time comes from ``clock`` (milliseconds) so tests can move it; expired entries are dropped lazily.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from mcp_eras.bridge.store.base import EVENT_ID, Json, Store, StoreFull, Subscription, newer
from mcp_eras.bridge.translate.gateway import ratelimit as rl


def _wall_ms() -> int:
    return int(time.time() * 1000)


class _Stream:
    def __init__(self) -> None:
        self.events: deque[tuple[str, int, Json]] = deque()  # (id, appended at ms, event)
        self.last_id = "0-0"
        self.max_deleted = "0-0"


class _MemorySubscription(Subscription):
    def __init__(self, store: MemoryStore, channel: str) -> None:
        self.store, self.channel = store, channel
        self.queue: asyncio.Queue[Json] = asyncio.Queue()

    async def get(self, timeout: float | None = None) -> Json | None:
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return None

    async def aclose(self) -> None:
        self.store._subscribers.get(self.channel, set()).discard(self)


MAX_BUCKETS = 100_000
"""Rate-limit buckets one process keeps (one per caller and server)."""
MAX_BUCKET_BYTES = 16 * 1024 * 1024
BUCKET_OVERHEAD = 120
"""Bytes a bucket is counted for besides its key (the tuples and the dict slot, roughly)."""
EVICTION_LOOKS = 16
"""Least recently used buckets looked at for an idle one when a new bucket would pass a cap."""


class MemoryStore(Store):
    name = "memory"
    shared = False

    def __init__(self, clock: Callable[[], int] = _wall_ms, *, max_buckets: int = MAX_BUCKETS,
                 max_bucket_bytes: int = MAX_BUCKET_BYTES) -> None:
        self.clock = clock
        self.max_buckets, self.max_bucket_bytes = max_buckets, max_bucket_bytes
        self._buckets: OrderedDict[str, tuple[rl.Bucket, float, float]] = OrderedDict()  # key -> (state, rate, burst)
        self._bucket_bytes = 0
        self._kv: dict[str, tuple[int | None, Any]] = {}  # key -> (expires at ms or None, value)
        self._streams: dict[str, _Stream] = {}
        self._subscribers: dict[str, set[_MemorySubscription]] = {}

    # --- plumbing ------------------------------------------------------------------------------------

    def _get(self, key: str) -> Any:
        item = self._kv.get(key)
        if item is None:
            return None
        expires, value = item
        if expires is not None and expires <= self.clock():
            del self._kv[key]
            self._streams.pop(key, None)
            return None
        return value

    def _put(self, key: str, value: Any, ttl_ms: int | None) -> None:
        self._kv[key] = (None if ttl_ms is None else self.clock() + max(1, ttl_ms), value)

    def _touch(self, key: str, ttl_ms: int) -> None:
        if key in self._kv:
            self._kv[key] = (self.clock() + max(1, ttl_ms), self._kv[key][1])

    # --- parked calls ----------------------------------------------------------------------------------

    async def park(self, puc: str, owner: str, ttl_ms: int) -> None:
        self._put(f"puc:{puc}", owner, ttl_ms)

    async def parked_owner(self, puc: str) -> str | None:
        return self._get(f"puc:{puc}")

    async def unpark(self, puc: str) -> str | None:
        owner = self._get(f"puc:{puc}")
        self._kv.pop(f"puc:{puc}", None)
        return owner

    # --- sessions ------------------------------------------------------------------------------------------

    async def create_session(self, sid: str, facts: Json, ttl_ms: int, owner: str = "") -> bool:
        if self._get(f"sess:{sid}") is not None:
            return False
        self._put(f"sess:{sid}", {"facts": copy.deepcopy(facts), "owner": owner, "state": {}, "subscriptions": []}, ttl_ms)
        return True

    async def claim_session(self, sid: str, expected_owner: str, owner: str) -> bool:
        rec = self._get(f"sess:{sid}")
        if rec is None or rec["owner"] != expected_owner:
            return False
        rec["owner"] = owner
        return True

    async def session(self, sid: str, ttl_ms: int | None = None) -> Json | None:
        rec = self._get(f"sess:{sid}")
        if rec is None:
            return None
        if ttl_ms is not None:
            self._touch(f"sess:{sid}", ttl_ms)
        return copy.deepcopy(rec)

    async def set_session_state(self, sid: str, key: str, value: Any) -> bool:
        rec = self._get(f"sess:{sid}")
        if rec is None:
            return False
        rec["state"][key] = copy.deepcopy(value)
        return True

    async def subscribe_resource(self, sid: str, uri: str, on: bool) -> bool:
        rec = self._get(f"sess:{sid}")
        if rec is None:
            return False
        subs: list[str] = rec["subscriptions"]
        if on and uri not in subs:
            subs.append(uri)
        elif not on and uri in subs:
            subs.remove(uri)
        return True

    async def delete_session(self, sid: str) -> bool:
        existed = self._get(f"sess:{sid}") is not None
        self._kv.pop(f"sess:{sid}", None)
        self._streams.pop(sid, None)
        return existed

    # --- event streams -----------------------------------------------------------------------------------

    async def append_event(self, sid: str, event: Json, *, max_events: int, retention_ms: int) -> str:
        stream = self._streams.setdefault(sid, _Stream())
        now = self.clock()
        ms, seq = (int(p) for p in stream.last_id.split("-"))
        event_id = f"{ms}-{seq + 1}" if now <= ms else f"{now}-0"
        stream.last_id = event_id
        stream.events.append((event_id, now, copy.deepcopy(event)))
        while stream.events and (len(stream.events) > max_events or stream.events[0][1] + retention_ms <= now):
            stream.max_deleted = stream.events.popleft()[0]
        return event_id

    async def events_after(self, sid: str, last_id: str, *, limit: int) -> list[tuple[str, Json]] | None:
        stream = self._streams.get(sid)
        if not EVENT_ID.match(last_id) or stream is None:
            return None
        if newer(last_id, stream.last_id) or newer(stream.max_deleted, last_id):
            return None
        out = [(eid, copy.deepcopy(ev)) for eid, _, ev in stream.events if newer(eid, last_id)]
        return out[:limit]

    # --- caches --------------------------------------------------------------------------------------------

    async def cache_put(self, space: str, key: str, value: Json, ttl_ms: int) -> None:
        if ttl_ms > 0:
            self._put(f"cache:{space}:{key}", copy.deepcopy(value), ttl_ms)

    async def cache_get(self, space: str, key: str) -> Json | None:
        value = self._get(f"cache:{space}:{key}")
        return copy.deepcopy(value) if value is not None else None

    async def cache_index(self, space: str, index: str, key: str, ttl_ms: int) -> None:
        name = f"cidx:{space}:{index}"
        held = self._kv.get(name)
        keys = self._get(name) or set()
        keys.add(key)
        expires = self.clock() + max(1, ttl_ms)
        self._kv[name] = (max(expires, held[0] or 0) if held is not None else expires, keys)

    async def cache_listed(self, space: str, index: str, *, limit: int) -> list[Json]:
        keys = self._get(f"cidx:{space}:{index}") or set()
        out = []
        for key in sorted(keys):
            value = self._get(f"cache:{space}:{key}")
            if value is None:
                keys.discard(key)
            elif len(out) < limit:
                out.append(copy.deepcopy(value))
        return out

    # --- registry ------------------------------------------------------------------------------------------

    async def heartbeat(self, instance: str, info: Json, ttl_ms: int) -> bool:
        known = self._get(f"inst:{instance}") is not None
        self._put(f"inst:{instance}", copy.deepcopy(info), ttl_ms)
        return known

    async def instance(self, instance: str) -> Json | None:
        return copy.deepcopy(self._get(f"inst:{instance}"))

    async def instances(self) -> dict[str, Json]:
        names = [k[len("inst:"):] for k in list(self._kv) if k.startswith("inst:")]
        found = {name: self._get(f"inst:{name}") for name in names}
        return {name: copy.deepcopy(info) for name, info in found.items() if info is not None}

    async def forget_instance(self, instance: str) -> None:
        self._kv.pop(f"inst:{instance}", None)

    # --- leases ---------------------------------------------------------------------------------------------

    async def lease(self, name: str, owner: str, ttl_ms: int) -> str:
        holder = self._get(f"lease:{name}")
        if holder is None or holder == owner:
            self._put(f"lease:{name}", owner, ttl_ms)
            return owner
        return str(holder)

    async def release(self, name: str, owner: str) -> None:
        if self._get(f"lease:{name}") == owner:
            self._kv.pop(f"lease:{name}", None)

    # --- pub/sub --------------------------------------------------------------------------------------------

    async def publish(self, channel: str, message: Json) -> int:
        subs = list(self._subscribers.get(channel, ()))
        for sub in subs:
            sub.queue.put_nowait(copy.deepcopy(message))
        return len(subs)

    async def subscribe(self, channel: str) -> Subscription:
        sub = _MemorySubscription(self, channel)
        self._subscribers.setdefault(channel, set()).add(sub)
        return sub

    # --- rate limits ----------------------------------------------------------------------------------------

    async def rate_take(self, key: str, cost: float, rate: float, burst: float, *, timeout: float) -> tuple[bool, float]:
        """The bucket in this process. A new bucket past ``max_buckets`` or ``max_bucket_bytes`` first lets go of
        idle ones (full again: forgetting them changes no answer) among the least recently used; when none is idle
        the caller gets ``StoreFull`` (a clear refusal rather than a forgotten limit)."""
        now = self.clock() / 1000
        held = self._buckets.get(key)
        if held is None:
            self._make_room(len(key) + BUCKET_OVERHEAD, now)
            self._bucket_bytes += len(key) + BUCKET_OVERHEAD
        else:
            self._buckets.move_to_end(key)
        decision = rl.take(None if held is None else held[0], now, cost, rate, burst)
        self._buckets[key] = (decision.state, rate, burst)
        return decision.allowed, decision.retry_after

    def _make_room(self, size: int, now: float) -> None:
        def over() -> bool:
            return len(self._buckets) + 1 > self.max_buckets or self._bucket_bytes + size > self.max_bucket_bytes

        if not over():
            return
        for key in list(itertools.islice(self._buckets, EVICTION_LOOKS)):
            state, rate, burst = self._buckets[key]
            if rl.idle(state, now, rate, burst):
                del self._buckets[key]
                self._bucket_bytes -= len(key) + BUCKET_OVERHEAD
                if not over():
                    return
        limit = "rate buckets" if len(self._buckets) + 1 > self.max_buckets else "rate bucket bytes"
        raise StoreFull(self.name, limit, self.max_buckets if limit == "rate buckets" else self.max_bucket_bytes)

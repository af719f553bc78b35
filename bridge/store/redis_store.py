"""The shared store on Redis (or Valkey), through redis-py's asyncio API (the ``mcp-eras[redis]`` extra).

Keys live under ``<prefix>:`` so several bridge clusters can share one server:

* ``puc:<puc>``        string, owner instance, PX = parked lifetime (GETDEL takes it once);
* ``sess:<sid>``       hash: ``facts`` (JSON), ``owner`` and ``state:<name>`` (JSON) — PX = idle TTL, refreshed on use;
* ``subs:<sid>``       set of subscribed resource URIs, same TTL;
* ``ev:<sid>``         stream of the session's events, trimmed by count and age; ``evcut:<sid>`` the newest trimmed id;
* ``cache:<space>:<key>`` JSON with PX = ttlMs; ``cidx:<space>:<index>`` the set of keys filed under an index
  (e.g. a principal's task records), PX = the longest TTL filed;
* ``inst:<id>``        JSON record with PX = heartbeat TTL, and the set ``instances`` naming them;
* ``lease:<name>``     string, the holding instance, PX = the lease time (taken with SET NX semantics, renewed by
  its holder; e.g. the one upstream listen of a share key, ``mcp_eras.bridge.scaleout.listens``);
* ``rate:<server>:<principal>`` hash ``tokens``, ``stamp`` (a rate-limit bucket), PX = the time it takes to fill;
* pub/sub channel ``ch:<channel>``.

Connection loss: each command is retried with exponential backoff (a few short tries), then fails as
``StoreError``; the connection pool reconnects on the next command. Every command, retries included, answers
within ``op_budget`` seconds or fails as ``StoreError`` (a frozen server never holds a caller longer).
Nothing is written half-way: multi-key writes are transactions or Lua scripts.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

import orjson
from redis import asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from mcp_eras.bridge.store.base import EVENT_ID, Json, Store, StoreError, Subscription, newer

T = TypeVar("T")

# Set one mutable field of a session only while the session exists (and keep its TTL).
_SET_STATE = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
# Move a session to a new owner only if the expected one still has it.
_CLAIM = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[2])
return 1
"""
# Add/remove a subscription only while the session exists; the set shares the session's deadline.
_SUBSCRIBE = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then return 0 end
if ARGV[1] == '1' then redis.call('SADD', KEYS[2], ARGV[2]) else redis.call('SREM', KEYS[2], ARGV[2]) end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
"""
# Append an event, trim by count and by age, remember the newest trimmed id (a replay from before it
# has a gap) and let the stream lapse ``retention`` after its last event. KEYS: stream, cut marker.
# ARGV: event JSON, max events, retention ms.
_APPEND = """
local id = redis.call('XADD', KEYS[1], '*', 'e', ARGV[1])
local t = redis.call('TIME')
local minid = tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[3])) .. '-0'
local cut = false
local over = redis.call('XLEN', KEYS[1]) - tonumber(ARGV[2])
if over > 0 then
  local gone = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', over)
  cut = gone[#gone][1]
  redis.call('XTRIM', KEYS[1], 'MAXLEN', ARGV[2])
end
local old = redis.call('XRANGE', KEYS[1], '-', '(' .. minid)
if #old > 0 then
  cut = old[#old][1]
  redis.call('XTRIM', KEYS[1], 'MINID', minid)
end
if cut then redis.call('SET', KEYS[2], cut) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return id
"""

# A rate-limit bucket (``mcp_eras.bridge.translate.gateway.ratelimit.take``, the same steps) in one script, so every
# replica takes tokens from one bucket atomically, by one clock: the Redis server's TIME. KEYS: the bucket.
# ARGV: cost, rate (tokens a second), burst. Returns {allowed (1/0), retry_after seconds as text}.
_RATE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local cost, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens, stamp = tonumber(held[1]), tonumber(held[2])
if tokens == nil or stamp == nil then tokens, stamp = burst, now end
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
stamp = math.max(stamp, now)
local allowed, retry = 0, 0
if tokens >= cost then
  allowed, tokens = 1, tokens - cost
else
  retry = (cost - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'stamp', string.format('%.17g', stamp))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, string.format('%.17g', retry)}
"""
# File a cache key under an index; the index lives as long as its longest-lived entry. KEYS: index. ARGV: key, ttl ms.
_INDEX = """
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""
# Take a lease nobody holds, or extend the caller's own. KEYS: the lease. ARGV: owner, ttl ms. Returns the holder.
_LEASE = """
local held = redis.call('GET', KEYS[1])
if not held then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return ARGV[1] end
if held == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return held
"""
# Give a lease up only while the caller holds it. KEYS: the lease. ARGV: owner.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_RATE_SHA = hashlib.sha1(_RATE.encode()).hexdigest()  # noqa: S324 - the script's name in Redis (EVALSHA), not security


def _dumps(value: Any) -> bytes:
    return orjson.dumps(value)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class _RedisSubscription(Subscription):
    def __init__(self, store: RedisStore, pubsub: Any) -> None:
        self.store, self.pubsub = store, pubsub

    async def get(self, timeout: float | None = None) -> Json | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            budget = None if left is None else left + self.store.op_budget
            msg = await self.store._guard(self.pubsub.get_message(ignore_subscribe_messages=True, timeout=left), budget)
            if msg is not None and msg.get("type") == "message":
                return orjson.loads(msg["data"])
            if deadline is not None and time.monotonic() >= deadline:
                return None

    async def aclose(self) -> None:
        try:
            await self.pubsub.aclose()
        except (RedisError, OSError):
            pass


class RedisStore(Store):
    shared = True

    def __init__(self, url: str, prefix: str = "mcp-bridge", *, op_timeout: float = 2.0, op_budget: float = 2.5) -> None:
        self.url = url
        self.op_budget = op_budget
        self.name = _public_name(url)
        self.prefix = prefix
        retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), retries=3)
        self.client = aioredis.Redis.from_url(
            url, socket_connect_timeout=op_timeout, socket_timeout=op_timeout, retry=retry,
            retry_on_error=[RedisConnectionError, RedisTimeoutError, ConnectionError, OSError], health_check_interval=15,
        )
        self._set_state = self.client.register_script(_SET_STATE)
        self._subscribe = self.client.register_script(_SUBSCRIBE)
        self._append = self.client.register_script(_APPEND)
        self._claim = self.client.register_script(_CLAIM)
        self._index = self.client.register_script(_INDEX)
        self._lease = self.client.register_script(_LEASE)
        self._release = self.client.register_script(_RELEASE)

    def _k(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    async def _guard(self, op: Awaitable[T], budget: float | None = -1.0) -> T:
        """Run one store operation within ``budget`` seconds (default ``op_budget``; None: no bound beyond the
        operation's own), its failures as ``StoreError``."""
        limit = self.op_budget if budget is not None and budget < 0 else budget
        try:
            async with asyncio.timeout(limit):
                return await op
        except TimeoutError as exc:  # (before OSError, which it is a kind of)
            raise StoreError(self.name, f"no answer within {limit:g}s") from exc
        except (RedisError, OSError) as exc:
            raise StoreError(self.name, f"{exc.__class__.__name__}: {exc}") from exc

    async def start(self) -> None:
        await self._guard(self.client.ping())

    async def aclose(self) -> None:
        try:
            await self.client.aclose()
        except (RedisError, OSError):
            pass

    # --- parked calls ----------------------------------------------------------------------------------

    async def park(self, puc: str, owner: str, ttl_ms: int) -> None:
        await self._guard(self.client.set(self._k("puc", puc), owner, px=max(1, ttl_ms)))

    async def parked_owner(self, puc: str) -> str | None:
        value = await self._guard(self.client.get(self._k("puc", puc)))
        return None if value is None else _text(value)

    async def unpark(self, puc: str) -> str | None:
        value = await self._guard(self.client.getdel(self._k("puc", puc)))
        return None if value is None else _text(value)

    # --- sessions ------------------------------------------------------------------------------------------

    async def create_session(self, sid: str, facts: Json, ttl_ms: int, owner: str = "") -> bool:
        key = self._k("sess", sid)

        async def create() -> bool:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.hsetnx(key, "facts", _dumps(facts))
                pipe.hsetnx(key, "owner", owner)
                pipe.pexpire(key, max(1, ttl_ms), nx=True)
                created, *_ = await pipe.execute()
            return bool(created)

        return await self._guard(create())

    async def claim_session(self, sid: str, expected_owner: str, owner: str) -> bool:
        return bool(await self._guard(self._claim(keys=[self._k("sess", sid)], args=[expected_owner, owner])))

    async def session(self, sid: str, ttl_ms: int | None = None) -> Json | None:
        key, subs = self._k("sess", sid), self._k("subs", sid)

        async def read() -> Json | None:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.hgetall(key)
                pipe.smembers(subs)
                if ttl_ms is not None:
                    pipe.pexpire(key, max(1, ttl_ms), xx=True)
                    pipe.pexpire(subs, max(1, ttl_ms), xx=True)
                fields, members, *_ = await pipe.execute()
            if not fields or b"facts" not in fields:
                return None
            state = {_text(k)[len("state:"):]: orjson.loads(v) for k, v in fields.items() if _text(k).startswith("state:")}
            return {"facts": orjson.loads(fields[b"facts"]), "owner": _text(fields.get(b"owner", b"")), "state": state,
                    "subscriptions": sorted(_text(m) for m in members)}

        return await self._guard(read())

    async def set_session_state(self, sid: str, key: str, value: Any) -> bool:
        done = await self._guard(self._set_state(keys=[self._k("sess", sid)], args=[f"state:{key}", _dumps(value)]))
        return bool(done)

    async def subscribe_resource(self, sid: str, uri: str, on: bool) -> bool:
        done = await self._guard(self._subscribe(keys=[self._k("sess", sid), self._k("subs", sid)], args=["1" if on else "0", uri]))
        return bool(done)

    async def delete_session(self, sid: str) -> bool:
        keys = [self._k(part, sid) for part in ("sess", "subs", "ev", "evcut")]
        removed = await self._guard(self.client.delete(*keys))
        return bool(removed)

    # --- event streams -----------------------------------------------------------------------------------

    async def append_event(self, sid: str, event: Json, *, max_events: int, retention_ms: int) -> str:
        keys = [self._k("ev", sid), self._k("evcut", sid)]
        event_id = await self._guard(self._append(keys=keys, args=[_dumps(event), max(1, max_events), max(1, retention_ms)]))
        return _text(event_id)

    async def events_after(self, sid: str, last_id: str, *, limit: int) -> list[tuple[str, Json]] | None:
        if not EVENT_ID.match(last_id):
            return None
        key = self._k("ev", sid)

        async def read() -> list[tuple[str, Json]] | None:
            try:
                info = await self.client.xinfo_stream(key)
            except aioredis.ResponseError:
                return None  # no such stream: nothing of this session is retained
            cut = await self.client.get(self._k("evcut", sid))
            if newer(last_id, _text(info["last-generated-id"])) or (cut is not None and newer(_text(cut), last_id)):
                return None
            rows = await self.client.xrange(key, min=f"({last_id}", count=limit)
            return [(_text(eid), orjson.loads(fields[b"e"])) for eid, fields in rows]

        return await self._guard(read())

    # --- caches --------------------------------------------------------------------------------------------

    async def cache_put(self, space: str, key: str, value: Json, ttl_ms: int) -> None:
        if ttl_ms > 0:
            await self._guard(self.client.set(self._k("cache", space, key), _dumps(value), px=ttl_ms))

    async def cache_get(self, space: str, key: str) -> Json | None:
        value = await self._guard(self.client.get(self._k("cache", space, key)))
        return None if value is None else orjson.loads(value)

    async def cache_index(self, space: str, index: str, key: str, ttl_ms: int) -> None:
        await self._guard(self._index(keys=[self._k("cidx", space, index)], args=[key, max(1, ttl_ms)]))

    async def cache_listed(self, space: str, index: str, *, limit: int) -> list[Json]:
        name = self._k("cidx", space, index)

        async def read() -> list[Json]:
            keys = sorted(_text(k) for k in await self.client.smembers(name))
            if not keys:
                return []
            values = await self.client.mget([self._k("cache", space, k) for k in keys])
            lapsed = [k for k, v in zip(keys, values, strict=True) if v is None]
            if lapsed:
                await self.client.srem(name, *lapsed)
            return [orjson.loads(v) for v in values if v is not None][:limit]

        return await self._guard(read())

    # --- registry ------------------------------------------------------------------------------------------

    async def heartbeat(self, instance: str, info: Json, ttl_ms: int) -> bool:
        async def beat() -> bool:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.set(self._k("inst", instance), _dumps(info), px=max(1, ttl_ms), get=True)
                pipe.sadd(self._k("instances"), instance)
                before, _ = await pipe.execute()
            return before is not None

        return await self._guard(beat())

    async def instance(self, instance: str) -> Json | None:
        value = await self._guard(self.client.get(self._k("inst", instance)))
        return None if value is None else orjson.loads(value)

    async def instances(self) -> dict[str, Json]:
        async def read() -> dict[str, Json]:
            names = sorted(_text(n) for n in await self.client.smembers(self._k("instances")))
            if not names:
                return {}
            values = await self.client.mget([self._k("inst", n) for n in names])
            lapsed = [n for n, v in zip(names, values, strict=True) if v is None]
            if lapsed:
                await self.client.srem(self._k("instances"), *lapsed)
            return {n: orjson.loads(v) for n, v in zip(names, values, strict=True) if v is not None}

        return await self._guard(read())

    async def forget_instance(self, instance: str) -> None:
        async def forget() -> None:
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.delete(self._k("inst", instance))
                pipe.srem(self._k("instances"), instance)
                await pipe.execute()

        await self._guard(forget())

    # --- rate limits ----------------------------------------------------------------------------------------

    async def rate_take(self, key: str, cost: float, rate: float, burst: float, *, timeout: float) -> tuple[bool, float]:
        """One EVALSHA of the bucket script (EVAL when the server does not know it: after a restart or SCRIPT FLUSH,
        which also loads it again); the whole exchange, retries included, within ``timeout``."""
        keys, args = [self._k("rate", key)], [repr(float(cost)), repr(float(rate)), repr(float(burst))]

        async def run() -> Any:
            try:
                return await self.client.evalsha(_RATE_SHA, 1, *keys, *args)
            except NoScriptError:
                return await self.client.eval(_RATE, 1, *keys, *args)

        try:
            async with asyncio.timeout(timeout):
                allowed, retry = await self._guard(run(), None)
        except TimeoutError as exc:
            raise StoreError(self.name, f"no answer within {timeout:g}s") from exc
        return bool(int(allowed)), float(_text(retry))

    # --- leases ---------------------------------------------------------------------------------------------

    async def lease(self, name: str, owner: str, ttl_ms: int) -> str:
        return _text(await self._guard(self._lease(keys=[self._k("lease", name)], args=[owner, max(1, ttl_ms)])))

    async def release(self, name: str, owner: str) -> None:
        await self._guard(self._release(keys=[self._k("lease", name)], args=[owner]))

    # --- pub/sub --------------------------------------------------------------------------------------------

    async def publish(self, channel: str, message: Json) -> int:
        return int(await self._guard(self.client.publish(self._k("ch", channel), _dumps(message))))

    async def subscribe(self, channel: str) -> Subscription:
        pubsub = self.client.pubsub()
        await self._guard(pubsub.subscribe(self._k("ch", channel)))
        # Wait for the server's confirmation, so that every message published after this returns is seen.
        async with asyncio.timeout(5):
            while True:
                msg = await self._guard(pubsub.get_message(timeout=1.0))
                if msg is not None and msg.get("type") == "subscribe":
                    break
        return _RedisSubscription(self, pubsub)


def _public_name(url: str) -> str:
    """The URL without credentials (for errors and /healthz)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    hostpart, slash, path = rest.partition("/")
    return f"{scheme}://{hostpart.rpartition('@')[2]}{slash}{path}"

"""The rate-limit layer over the in-memory store: per (principal, server) buckets, what counts, the store's caps, a
failing store, the metrics and the 2026 front's 429 with Retry-After."""

from __future__ import annotations

import httpx
import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, discard, find
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.layers.ratelimit import RateLimitedUpstream, rate_limited
from mcp_eras.bridge.store.base import StoreError
from mcp_eras.bridge.store.memory import MemoryStore
from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate.gateway.ratelimit import RateLimit
from mcp_eras.bridge.translate.jsonrpc import Message

pytestmark = pytest.mark.anyio


class Counting(Upstream):
    era = eras.MODERN  # type: ignore[assignment]

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def start(self) -> None: ...

    async def discover(self, ctx: CallContext) -> Message:
        return {"resultType": "complete", "capabilities": {}}

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        self.seen.append(request["method"])
        return {"jsonrpc": "2.0", "id": request["id"], "result": {"resultType": "complete", "content": []}}

    async def aclose(self) -> None: ...


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000_000

    def __call__(self) -> int:
        return self.ms


def _call(rid: int, params: dict | None = None, method: str = "tools/call") -> Message:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {"name": "echo", "arguments": {}, **(params or {})}}


def _layer(limit: str = "2/s", burst: int = 3, store: MemoryStore | None = None) -> tuple[RateLimitedUpstream, Counting, Metrics, Clock]:
    clock = Clock()
    inner, metrics = Counting(), Metrics()
    layer = RateLimitedUpstream(inner, store or MemoryStore(clock), RateLimit.of(limit, burst), metrics, "files")
    return layer, inner, metrics, clock


async def test_a_principal_gets_its_burst_then_the_named_error_and_others_are_unaffected() -> None:
    layer, inner, metrics, clock = _layer()
    alice, bob = CallContext(principal="alice"), CallContext(principal="bob")
    answers = [await layer.call(_call(i), alice, discard) for i in range(5)]
    assert [("result" in a) for a in answers] == [True, True, True, False, False]
    assert answers[3]["error"] == {"code": -32000, "message": answers[3]["error"]["message"],
                                   "data": {"limit": "rate", "retry_after": 1}}
    assert inner.seen == ["tools/call"] * 3  # refused calls never reach the upstream
    assert "result" in await layer.call(_call(9), bob, discard)
    assert metrics.value("rate_limited_total", {"server": "files", "reason": "rate"}) == 2
    clock.ms += 500  # one token back at 2/s
    assert "result" in await layer.call(_call(10), alice, discard)
    assert "error" in await layer.call(_call(11), alice, discard)


async def test_anonymous_callers_share_one_bucket() -> None:
    layer, _, _, _ = _layer(burst=2)
    anon = CallContext()
    assert "result" in await layer.call(_call(1), anon, discard)
    assert "result" in await layer.call(_call(2), CallContext(trace={"traceparent": "x"}), discard)
    assert "error" in await layer.call(_call(3), anon, discard)


async def test_mrtr_retries_and_2025_session_housekeeping_take_no_token() -> None:
    layer, inner, _, _ = _layer(burst=1)
    legacy = CallContext(principal="p", client_era=eras.LEGACY)
    assert "result" in await layer.call(_call(1), legacy, discard)
    for i, msg in enumerate([_call(2, {"requestState": "s1"}), _call(3, method="ping"),
                             _call(4, method="server/discover"), _call(5, method="subscriptions/listen")]):
        assert "result" in await layer.call(msg, legacy, discard), i
    assert inner.seen == ["tools/call", "tools/call", "ping", "server/discover", "subscriptions/listen"]
    assert "error" in await layer.call(_call(6), legacy, discard)
    # a 2026 client's own server/discover is its request: counted
    assert "error" in await layer.call(_call(7, method="server/discover"), CallContext(principal="p"), discard)


async def test_no_limit_is_no_layer_and_a_reload_can_lift_one() -> None:
    inner = Counting()
    assert rate_limited(inner, None, Metrics()) is inner
    layer, _, _, _ = _layer(burst=1)
    ctx = CallContext(principal="p")
    await layer.call(_call(1), ctx, discard)
    assert "error" in await layer.call(_call(2), ctx, discard)
    layer.configure(None)
    assert "result" in await layer.call(_call(3), ctx, discard)
    assert find(rate_limited(inner, RateLimit.of("1/s"), Metrics()), RateLimitedUpstream) is not None


async def test_a_failing_store_lets_requests_through_and_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    layer, inner, metrics, _ = _layer(burst=1)

    async def broken(*_args: object, **_kw: object) -> tuple[bool, float]:
        raise StoreError("redis://127.0.0.1:1/0", "ConnectionError: refused")

    monkeypatch.setattr(layer.store, "rate_take", broken)
    for i in range(3):
        assert "result" in await layer.call(_call(i), CallContext(principal="p"), discard)
    assert len(inner.seen) == 3
    assert metrics.value("rate_limit_store_errors_total", {"server": "files"}) == 3


async def test_the_memory_store_lets_idle_buckets_go_and_refuses_clearly_at_its_cap() -> None:
    clock = Clock()
    store = MemoryStore(clock, max_buckets=2)
    layer, _, metrics, _ = _layer(limit="1/s", burst=1, store=store)
    assert "result" in await layer.call(_call(1), CallContext(principal="a"), discard)
    assert "result" in await layer.call(_call(2), CallContext(principal="b"), discard)
    full = await layer.call(_call(3), CallContext(principal="c"), discard)  # a and b still refilling
    assert full["error"]["data"] == {"limit": "rate_buckets"} and "2 buckets" in full["error"]["message"]
    assert metrics.value("rate_limited_total", {"server": "files", "reason": "rate_buckets"}) == 1
    clock.ms += 1000  # a and b are full again: idle, forgotten without changing any answer
    assert "result" in await layer.call(_call(4), CallContext(principal="c"), discard)
    assert "result" in await layer.call(_call(5), CallContext(principal="a"), discard)


async def test_the_memory_stores_byte_cap() -> None:
    clock = Clock()
    store = MemoryStore(clock, max_bucket_bytes=300)
    assert (await store.rate_take("k" * 100, 1, 1.0, 1, timeout=1))[0]
    with pytest.raises(StoreError, match="rate bucket bytes at the cap"):
        await store.rate_take("j" * 100, 1, 1.0, 1, timeout=1)
    clock.ms += 1000
    assert (await store.rate_take("j" * 100, 1, 1.0, 1, timeout=1))[0]
    assert list(store._buckets) == ["j" * 100]  # noqa: SLF001 - the idle one was let go


async def test_the_2026_front_answers_429_with_retry_after() -> None:
    layer, _, _, _ = _layer(burst=1)
    app = build_app(Settings(front_era=eras.MODERN), layer, None)
    meta = {"io.modelcontextprotocol/protocolVersion": eras.MODERN, "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}
    headers = {"accept": "application/json, text/event-stream", "mcp-protocol-version": eras.MODERN,
               "mcp-method": "tools/call", "mcp-name": "echo", "authorization": "Bearer one", "host": "127.0.0.1"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
        statuses = []
        for i in range(2):
            body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "echo", "arguments": {}, "_meta": meta}}
            resp = await client.post("/mcp", json=body, headers=headers)
            statuses.append(resp.status_code)
        assert statuses == [200, 429]
        assert resp.headers["retry-after"] == "1"
        assert resp.json()["error"]["data"] == {"limit": "rate", "retry_after": 1}
        other = await client.post("/mcp", json={**body, "id": 9}, headers={**headers, "authorization": "Bearer two"})
        assert other.status_code == 200

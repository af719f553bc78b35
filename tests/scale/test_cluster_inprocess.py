"""In-process tests of the scale-out shells: two ``ClusterUpstream`` instances over one store with fake
upstreams, wired to each other through httpx's ASGI transport (no sockets)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
from inprocess.fakes import FakeUpstream
from starlette.applications import Starlette

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext
from mcp_eras.bridge.layers.cluster import AUTH_HEADER, FORWARD_PATH, ClusterUpstream, _sign, forward_key
from mcp_eras.bridge.state import StateSealer
from mcp_eras.bridge.store import StoreError
from mcp_eras.bridge.store.memory import MemoryStore
from mcp_eras.bridge.translate.jsonrpc import Message

import peers

pytestmark = pytest.mark.anyio

KEY = bytes(range(32))


def settings(instance: str) -> Settings:
    return Settings(state_key=KEY, instance_id=instance, state_store="redis://unused")


class Node:
    def __init__(self, name: str, store: MemoryStore) -> None:
        self.fake = FakeUpstream()
        self.cluster = ClusterUpstream(self.fake, settings(name), store, f"http://{name}")
        self.app = Starlette(routes=self.cluster.routes())


@pytest.fixture
async def nodes() -> AsyncIterator[dict[str, Node]]:
    store = MemoryStore()
    out = {name: Node(name, store) for name in ("a", "b")}
    mounts = {f"http://{name}": httpx.ASGITransport(app=node.app) for name, node in out.items()}
    for node in out.values():
        await node.cluster.start()
        await node.cluster.http().aclose()
        node.cluster._http = httpx.AsyncClient(mounts=mounts)
        await store.heartbeat(node.cluster.instance_id, {"url": node.cluster.advertise_url}, 60_000)
    yield out
    for node in out.values():
        await node.cluster.aclose()


def retry(token: str, name: str = "progress") -> Message:
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": name, "arguments": {}, "inputResponses": {}, "requestState": token, "_meta": {"progressToken": "p"}}}


def sealed_by(instance: str, key: bytes = KEY) -> str:
    return StateSealer(key, instance, 60).seal(puc="x", principal=None, method="tools/call", digest="d", round=1)


async def test_retry_sealed_elsewhere_is_forwarded_and_streams_back(nodes: dict[str, Node]) -> None:
    notes: list[Message] = []

    async def emit(msg: Message) -> None:
        notes.append(msg)

    ctx = CallContext(principal="p1", authorization="Bearer t", trace={"traceparent": "00-1-2-01"})
    answer = await nodes["b"].cluster.call(retry(sealed_by("a")), ctx, emit)
    assert answer["result"]["content"][0]["text"] == "progress"
    assert [n["params"]["progress"] for n in notes] == [1, 2]
    (request, seen), = nodes["a"].fake.calls
    assert request["id"] == 7 and seen == ctx
    assert nodes["b"].fake.calls == []
    assert nodes["b"].cluster.forwarded["out"] == 1 and nodes["a"].cluster.forwarded["in"] == 1


async def test_own_and_foreign_tokens_stay_local(nodes: dict[str, Node]) -> None:
    ctx = CallContext()
    for token in (sealed_by("b"), sealed_by("a", key=bytes(32)), "garbage"):
        await nodes["b"].cluster.call(retry(token, "echo"), ctx, _drop)
    assert len(nodes["b"].fake.calls) == 3 and nodes["a"].fake.calls == []


async def test_owner_gone_is_lost_at_once(nodes: dict[str, Node]) -> None:
    answer = await nodes["b"].cluster.call(retry(sealed_by("c")), CallContext(), _drop)
    assert answer["error"]["code"] == -32602 and answer["error"]["data"] == {"reason": "lost"}
    assert "bridge instance c is gone" in answer["error"]["message"]


async def test_store_down_is_32603_naming_it(nodes: dict[str, Node]) -> None:
    async def down(_instance: str) -> Any:
        raise StoreError("redis://db:6379/0", "ConnectionError: refused")

    nodes["b"].cluster.store.instance = down  # type: ignore[method-assign]
    # An owner listed by the last heartbeat is reached without the store ...
    nodes["b"].cluster.peers = {"a": {"url": "http://a"}}
    answer = await nodes["b"].cluster.call(retry(sealed_by("a")), CallContext(), _drop)
    assert answer["result"]["content"][0]["text"] == "progress"
    # ... and so is one missing from the listing, at the address it last registered (a registry emptied by a store
    # fault is no proof that it is gone) ...
    nodes["b"].cluster.peers = {}
    answer = await nodes["b"].cluster.call(retry(sealed_by("a")), CallContext(), _drop)
    assert answer["result"]["content"][0]["text"] == "progress"
    # ... one it has never seen needs the store: -32603 naming it.
    nodes["b"].cluster.known = {}
    answer = await nodes["b"].cluster.call(retry(sealed_by("a")), CallContext(), _drop)
    assert answer["error"]["code"] == -32603 and "redis://db:6379/0" in answer["error"]["message"]
    # Local calls do not need the store.
    local = await nodes["b"].cluster.call(retry(sealed_by("b"), "echo"), CallContext(), _drop)
    assert local["result"]["content"][0]["text"] == "echo"


@pytest.mark.parametrize("tamper", ["signature", "stale", "other key"])
async def test_forward_endpoint_refuses_unauthenticated(nodes: dict[str, Node], tamper: str) -> None:
    at_ms = int(time.time() * 1000) - (60_000 if tamper == "stale" else 0)
    body = orjson.dumps({"request": retry(sealed_by("a")), "principal": None, "at_ms": at_ms})
    key = forward_key(bytes(32) if tamper == "other key" else KEY)
    sig = "0" * 64 if tamper == "signature" else _sign(key, body)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=nodes["a"].app), base_url="http://a") as http:
        resp = await http.post(FORWARD_PATH, content=body, headers={AUTH_HEADER: sig})
    assert resp.status_code == (400 if tamper == "stale" else 403)
    assert nodes["a"].fake.calls == []


async def _drop(_msg: Message) -> None:
    return None


def test_shared_store_without_key_refused_in_one_line() -> None:
    proc = subprocess.run([*peers.bridge_cmd(), "serve", "--listen", "127.0.0.1:9", "--state-store", "redis://127.0.0.1:1/0",
                           "--upstream", "http://127.0.0.1:9/mcp"], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["mcp-bridge: --state-store redis://... needs --state-key (or MCP_BRIDGE_STATE_KEY) "
                                                "shared by every instance"]


async def test_discover_shared_for_its_ttl(nodes: dict[str, Node]) -> None:
    calls = {"a": 0, "b": 0}

    def counting(name: str, ttl: int, scope: str) -> Any:
        async def discover(ctx: CallContext) -> Message:
            calls[name] += 1
            return {"resultType": "complete", "ttlMs": ttl, "cacheScope": scope, "serverInfo": {"name": name}}
        return discover

    nodes["a"].fake.discover = counting("a", 60_000, "private")  # type: ignore[method-assign]
    nodes["b"].fake.discover = counting("b", 60_000, "private")  # type: ignore[method-assign]
    alice, bob = CallContext(principal="alice"), CallContext(principal="bob")
    assert (await nodes["a"].cluster.discover(alice))["serverInfo"] == {"name": "a"}
    assert (await nodes["b"].cluster.discover(alice))["serverInfo"] == {"name": "a"}  # shared
    assert (await nodes["b"].cluster.discover(bob))["serverInfo"] == {"name": "b"}  # private to its caller
    assert calls == {"a": 1, "b": 1}


async def test_param_header_annotations_shared(nodes: dict[str, Node]) -> None:
    a, b = nodes["a"].cluster.param_headers, nodes["b"].cluster.param_headers
    a["regional"] = {("region",): "Region"}
    a["plain"] = {("x",): "X"}
    a.pop("plain", None)
    await a.publish()
    await b.refresh()
    assert dict(b) == {"regional": {("region",): "Region"}}
    # What an instance learned itself wins over the shared copy.
    b["regional"] = {("count",): "Count"}
    await b.refresh()
    assert b["regional"] == {("count",): "Count"}


@pytest.mark.parametrize("tamper", ["signature", "stale", "body"])
async def test_session_relay_endpoint_refuses_unauthenticated(nodes: dict[str, Node], tamper: str) -> None:
    from mcp_eras.bridge.front.legacy import LegacyHttpFront
    from mcp_eras.bridge.scaleout.sessions import AT_HEADER, SESSION_PATH, ClusterLegacyFront, _relay_mac

    cluster = nodes["a"].cluster
    front = ClusterLegacyFront(LegacyHttpFront(nodes["a"].fake, cluster.settings), cluster, cluster.settings)
    app = Starlette(routes=front.routes())
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    at_ms = str(int(time.time() * 1000) - (60_000 if tamper == "stale" else 0))
    mac = "0" * 64 if tamper == "signature" else _relay_mac(forward_key(KEY), "POST", "s1", at_ms, body)
    sent = body.replace(b"ping", b"tools/list") if tamper == "body" else body
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://a") as http:
        resp = await http.post(SESSION_PATH, content=sent, headers={AUTH_HEADER: mac, AT_HEADER: at_ms, "mcp-session-id": "s1"})
    assert resp.status_code == (400 if tamper == "stale" else 403)
    assert front.relayed["in"] == 0


async def test_metrics_count_forwards_failures_and_store_errors(nodes: dict[str, Node]) -> None:
    from mcp_eras.bridge.fleet.metrics import parse_text
    from mcp_eras.bridge.layers.observe import observe
    from mcp_eras.bridge.upstream.factory import Target

    b = nodes["b"].cluster
    _, observer = observe(nodes["b"].fake, Target(url="http://upstream/mcp"), b.settings)
    observer.upstream = b  # as `serve` wires it: /metrics reads the cluster's counters
    await b.call(retry(sealed_by("a")), CallContext(), _drop)  # forwarded
    await b.call(retry(sealed_by("c")), CallContext(), _drop)  # owner gone

    async def down(_instance: str) -> Any:
        raise StoreError("redis://db:6379/0", "ConnectionError: refused")

    b.store.instance = down  # type: ignore[method-assign]
    b.peers, b.known = {}, {}
    await b.call(retry(sealed_by("a")), CallContext(), _drop)  # the registry cannot be read
    samples = parse_text((await observer.metrics_endpoint(None)).body.decode())  # type: ignore[arg-type]
    got = {name.removeprefix("mcp_bridge_cluster_"): value for name, rows in samples.items() if "cluster" in name
           for labels, value in rows if labels == {"instance": "b"}}
    assert got["forwarded_total"] == 1 and got["forward_failures_total"] == 1, got
    assert got["store_errors_total"] == 1 and got["store_reconnects_total"] == 0, got
    assert got["forwarded_in_total"] == 0 and got["sessions_adopted_total"] == 0, got


async def test_heartbeat_counts_store_errors_and_the_reconnect() -> None:
    import anyio

    store = MemoryStore()
    failures, beats, recovered = 2, 0, anyio.Event()
    real_heartbeat = store.heartbeat

    async def flaky(instance: str, info: Any, ttl_ms: int) -> None:
        nonlocal failures, beats
        if failures:
            failures -= 1
            raise StoreError("redis://db:6379/0", "ConnectionError: refused")
        await real_heartbeat(instance, info, ttl_ms)
        beats += 1
        if beats == 2:  # the beat after the one that came back: its counters are settled
            recovered.set()

    store.heartbeat = flaky  # type: ignore[method-assign]
    cluster = ClusterUpstream(FakeUpstream(), settings("r").model_copy(update={"heartbeat_interval": 0.001}), store, "http://r")
    await cluster.start()
    try:
        with anyio.fail_after(30):
            await recovered.wait()
        counters = cluster.counters()
        assert counters["store_errors"] == 2 and counters["store_reconnects"] == 1, counters
    finally:
        await cluster.aclose()

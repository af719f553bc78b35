"""The Store contract, run against the in-memory store and a real redis-server (same tests)."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Iterator

import pytest
import scale_peers

from mcp_eras.bridge.store import Store, StoreError
from mcp_eras.bridge.store.memory import MemoryStore
from mcp_eras.bridge.store.open import open_store
from mcp_eras.bridge.store.redis_store import RedisStore


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with scale_peers.redis_server() as url:
        yield url


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    if request.param == "memory":
        yield MemoryStore()
        return
    s = open_store(request.getfixturevalue("redis_url"), prefix=f"t{secrets.token_hex(4)}")
    await s.start()
    try:
        yield s
    finally:
        await s.aclose()


pytestmark = pytest.mark.anyio

FACTS = {"protocolVersion": "2025-11-25", "clientCapabilities": {"elicitation": {}}, "clientInfo": {"name": "c", "version": "1"},
         "principal": None}


async def test_parked_owner_is_taken_once(store: Store) -> None:
    await store.park("p1", "bridge-0", 60_000)
    assert await store.parked_owner("p1") == "bridge-0"
    results = await asyncio.gather(*(store.unpark("p1") for _ in range(8)))
    assert results.count("bridge-0") == 1 and results.count(None) == 7
    assert await store.parked_owner("p1") is None


async def test_session_facts_and_mutable_parts(store: Store) -> None:
    assert await store.create_session("s1", FACTS, 60_000, owner="bridge-0")
    assert not await store.create_session("s1", {"other": True}, 60_000, owner="bridge-1")
    assert await store.set_session_state("s1", "logLevel", "warning")
    assert await store.subscribe_resource("s1", "file:///a", True)
    assert await store.subscribe_resource("s1", "file:///b", True)
    assert await store.subscribe_resource("s1", "file:///a", False)
    rec = await store.session("s1", ttl_ms=60_000)
    assert rec == {"facts": FACTS, "owner": "bridge-0", "state": {"logLevel": "warning"}, "subscriptions": ["file:///b"]}
    # Adoption: exactly one of several instances moves the session to itself.
    claims = await asyncio.gather(*(store.claim_session("s1", "bridge-0", f"bridge-{i}") for i in (1, 2, 3)))
    assert claims.count(True) == 1
    assert (await store.session("s1") or {})["owner"] == f"bridge-{claims.index(True) + 1}"
    assert await store.delete_session("s1")
    assert await store.session("s1") is None
    assert not await store.delete_session("s1")
    # Mutating a session that is gone does not resurrect it.
    assert not await store.set_session_state("s1", "logLevel", "debug")
    assert not await store.subscribe_resource("s1", "file:///a", True)
    assert not await store.claim_session("s1", "bridge-0", "bridge-1")
    assert await store.session("s1") is None


async def test_session_idle_ttl(store: Store) -> None:
    clock = [1_000_000]
    if isinstance(store, MemoryStore):
        store.clock = lambda: clock[0]
    assert await store.create_session("s2", FACTS, 1_000 if isinstance(store, MemoryStore) else 150)
    if isinstance(store, MemoryStore):
        clock[0] += 1_000
    else:
        # Real Redis expiry: poll the store itself (no fixed sleep), bounded.
        for _ in range(200):
            if await store.session("s2") is None:
                break
            await asyncio.sleep(0.01)
    assert await store.session("s2") is None


async def test_event_stream_replay_never_crosses_sessions(store: Store) -> None:
    await store.create_session("a", FACTS, 60_000)
    await store.create_session("b", FACTS, 60_000)
    ids_a = [await store.append_event("a", {"n": i}, max_events=100, retention_ms=60_000) for i in range(5)]
    ids_b = [await store.append_event("b", {"n": 100 + i}, max_events=100, retention_ms=60_000) for i in range(2)]
    assert ids_a == sorted(ids_a, key=lambda e: tuple(map(int, e.split("-"))))
    assert [e for _, e in await store.events_after("a", ids_a[1], limit=100) or []] == [{"n": 2}, {"n": 3}, {"n": 4}]
    assert await store.events_after("a", ids_a[-1], limit=100) == []
    assert [e for _, e in await store.events_after("b", ids_b[0], limit=100) or []] == [{"n": 101}]
    # An id from another session, or garbage: whatever comes back is this session's, never another's.
    later = await store.append_event("b", {"n": 102}, max_events=100, retention_ms=60_000)
    assert all(e["n"] < 100 for _, e in await store.events_after("a", later, limit=100) or [])
    assert all(e["n"] >= 100 for _, e in await store.events_after("b", "0-1", limit=100) or [])
    assert await store.events_after("a", "not-an-id", limit=100) is None
    assert await store.events_after("nobody", ids_a[0], limit=100) is None


async def test_event_stream_trimmed_is_reported(store: Store) -> None:
    ids = [await store.append_event("c", {"n": i}, max_events=3, retention_ms=60_000) for i in range(6)]
    assert [e["n"] for _, e in await store.events_after("c", ids[2], limit=10) or []] == [3, 4, 5]
    assert await store.events_after("c", ids[1], limit=10) is None  # ids[2] was trimmed: a gap


async def test_cache_with_ttl(store: Store) -> None:
    await store.cache_put("discover", "up", {"resultType": "complete"}, 60_000)
    assert await store.cache_get("discover", "up") == {"resultType": "complete"}
    await store.cache_put("discover", "zero", {"x": 1}, 0)
    assert await store.cache_get("discover", "zero") is None
    assert await store.cache_get("tools", "up") is None


async def test_registry(store: Store) -> None:
    await store.heartbeat("bridge-0", {"url": "http://127.0.0.1:1/"}, 60_000)
    await store.heartbeat("bridge-1", {"url": "http://127.0.0.1:2/"}, 60_000)
    assert await store.instance("bridge-1") == {"url": "http://127.0.0.1:2/"}
    assert set(await store.instances()) == {"bridge-0", "bridge-1"}
    await store.forget_instance("bridge-0")
    assert set(await store.instances()) == {"bridge-1"}
    assert await store.instance("bridge-0") is None


async def test_heartbeat_says_whether_the_record_was_there(store: Store) -> None:
    # (False: registered anew, after the record lapsed or the store lost it; the instance then republishes)
    assert await store.heartbeat("bridge-0", {"url": "http://127.0.0.1:1/"}, 60_000) is False
    assert await store.heartbeat("bridge-0", {"url": "http://127.0.0.1:1/"}, 60_000) is True
    await store.forget_instance("bridge-0")
    assert await store.heartbeat("bridge-0", {"url": "http://127.0.0.1:1/"}, 60_000) is False


async def test_cache_index_lists_live_entries(store: Store) -> None:
    await store.cache_put("tasks", "t1", {"id": "t1"}, 60_000)
    await store.cache_put("tasks", "t2", {"id": "t2"}, 1)
    for key in ("t1", "t2", "t3"):  # t3: filed, never written
        await store.cache_index("tasks", "alice", key, 60_000)
    await store.cache_index("tasks", "bob", "t1", 60_000)
    await asyncio.sleep(0.01)
    assert await store.cache_listed("tasks", "alice", limit=10) == [{"id": "t1"}]
    assert await store.cache_listed("tasks", "alice", limit=0) == []
    assert await store.cache_listed("tasks", "carol", limit=10) == []


async def test_pubsub_in_order(store: Store) -> None:
    sub = await store.subscribe("sessions")
    other = await store.subscribe("elsewhere")
    try:
        for i in range(3):
            assert await store.publish("sessions", {"n": i}) >= 1
        assert [await sub.get(timeout=5) for _ in range(3)] == [{"n": 0}, {"n": 1}, {"n": 2}]
        assert await other.get(timeout=0.05) is None
    finally:
        await sub.aclose()
        await other.aclose()


async def test_unreachable_redis_names_the_store() -> None:
    port = scale_peers.peers.free_port()
    store = RedisStore(f"redis://user:secret@127.0.0.1:{port}/3", op_timeout=0.5)
    try:
        with pytest.raises(StoreError) as info:
            await store.park("p", "me", 1000)
        assert f"redis://127.0.0.1:{port}/3" in str(info.value)
        assert "secret" not in str(info.value)
    finally:
        await store.aclose()


async def test_reconnects_after_restart(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Redis goes away and comes back on the same port: commands fail as StoreError meanwhile, then work."""
    with scale_peers.redis_server() as url:
        store = RedisStore(url, op_timeout=0.5)
        await store.park("p", "me", 60_000)
    with pytest.raises(StoreError):
        await store.parked_owner("p")
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    binary = scale_peers.need("redis-server")
    cmd = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path), "--save", "", "--appendonly", "no"]
    with scale_peers.peers.running(cmd, port):
        assert await store.parked_owner("p") is None  # a fresh server: no stale data, no error
        await store.park("p", "me", 60_000)
        assert await store.parked_owner("p") == "me"
    await store.aclose()


def test_open_store_urls() -> None:
    assert isinstance(open_store("memory"), MemoryStore)
    assert open_store("redis://h:1/2").name == "redis://h:1/2"
    with pytest.raises(ValueError):
        open_store("postgres://x")


async def test_lease_one_holder_renewed_released_and_lapsing(store: Store) -> None:
    """What elects the one upstream listen per share key across instances (issue #33 item 9)."""
    holders = await asyncio.gather(*(store.lease("k", f"i{n}", 60_000) for n in range(8)))
    winner = holders[0]
    assert holders == [winner] * 8 and winner in {f"i{n}" for n in range(8)}  # every caller is told the one holder
    assert await store.lease("k", winner, 60_000) == winner  # renewed by its holder
    other = "i7" if winner != "i7" else "i6"
    await store.release("k", other)  # not the holder's: nothing happens
    assert await store.lease("k", other, 60_000) == winner
    await store.release("k", winner)
    assert await store.lease("k", other, 200) == other
    deadline = asyncio.get_running_loop().time() + 10
    while await store.lease("k", winner, 200) != winner:  # the lapsed lease is free again
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.05)
    assert await store.lease("other-key", other, 60_000) == other  # leases are per name

"""One upstream ``subscriptions/listen`` per share key across instances (issue #33 item 9), in process: three
``ListenHub``s (three instances' 2025 fronts) coordinated through one store (``bridge/scaleout/listens.py``), each
with its own view of it that a test can take down, over one ``ListeningUpstream`` that counts open listens.

Without the coordination each hub holds its own listen (three); with it the upstream sees one, each member still
gets exactly what its own filter asks for, a leader that leaves is replaced, and a store fault falls back to one
listen per instance, then back to one when the store returns."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace
from typing import Any

import pytest
from legacy_front_fakes import ListeningUpstream

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext
from mcp_eras.bridge.front.legacy_listener import ListenHub
from mcp_eras.bridge.scaleout import listens
from mcp_eras.bridge.store.base import StoreError, Subscription
from mcp_eras.bridge.store.memory import MemoryStore
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import listen as ll
from mcp_eras.bridge.translate.legacy_client import listen_cluster as lc

pytestmark = pytest.mark.anyio

TICK = 0.1
"""The heartbeat interval of the test instances (the lease lapses after three)."""
DEADLINE = 20.0
UPDATED = "notifications/resources/updated"
TOOLS_CHANGED = "notifications/tools/list_changed"


class View:
    """One instance's view of the shared store: ``down`` makes every command (and its subscriptions) fail, as a
    stopped Redis does; ``hang`` makes every command wait forever (a store without its command deadline)."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner
        self.down = False
        self.hang = False
        self.name, self.shared = "test-store", True

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not asyncio.iscoroutinefunction(attr):
            return attr

        async def guarded(*args: Any, **kwargs: Any) -> Any:
            if self.hang:
                await asyncio.Event().wait()
            if self.down:
                raise StoreError(self.name, "down")
            out = await attr(*args, **kwargs)
            return ViewSub(self, out) if isinstance(out, Subscription) else out

        return guarded


class ViewSub(Subscription):
    def __init__(self, view: View, inner: Subscription) -> None:
        self.view, self.inner = view, inner

    async def get(self, timeout: float | None = None) -> Any:
        if self.view.down:
            raise StoreError(self.view.name, "down")
        return await self.inner.get(timeout)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Member:
    """A 2025 session as a shared listen sees it."""

    def __init__(self, upstream: ListeningUpstream, settings: Settings, principal: str = "alice") -> None:
        self.upstream, self.settings = upstream, settings
        identity = lf.SessionIdentity("2025-11-25", {}, {"name": "c", "version": "1"})
        self.state = SimpleNamespace(principal=principal, identity=identity)
        self.ctx = CallContext(principal=principal)
        self.got: list[dict[str, Any]] = []
        self.changed = asyncio.Condition()

    async def deliver_unsolicited(self, msg: dict[str, Any]) -> None:
        self.got.append(msg)
        async with self.changed:
            self.changed.notify_all()

    async def wait_for(self, note: dict[str, Any]) -> None:
        async with asyncio.timeout(DEADLINE), self.changed:
            await self.changed.wait_for(lambda: note in self.got)


class Cluster:
    def __init__(self, n: int, tick: float = TICK) -> None:
        self.store = MemoryStore()
        self.upstream = ListeningUpstream()
        self.settings = Settings(connect_timeout=5.0)
        self.views = [View(self.store) for _ in range(n)]
        self.hubs = []
        for i, view in enumerate(self.views):
            hub = ListenHub(ll.ListenBudget(8))
            listens.attach(hub, view, f"inst-{i}", tick)  # type: ignore[arg-type]
            self.hubs.append(hub)
        self.members = [Member(self.upstream, self.settings) for _ in range(n)]

    async def join(self, i: int, filt: dict[str, Any]) -> dict[str, Any]:
        return await self.hubs[i].update(self.members[i], filt)

    def roles(self) -> list[str]:
        return [link.co.role for hub in self.hubs if hub.cluster for link in hub.cluster.links.values()]  # type: ignore[attr-defined]

    async def until(self, predicate: Callable[[], bool]) -> None:
        end = asyncio.get_running_loop().time() + DEADLINE
        while not predicate():
            assert asyncio.get_running_loop().time() < end, (len(self.upstream.listens), self.roles())
            await asyncio.sleep(TICK / 2)

    async def aclose(self) -> None:
        for hub in self.hubs:
            await hub.aclose()


@pytest.fixture
async def cluster() -> AsyncIterator[Cluster]:
    c = Cluster(3)
    try:
        yield c
    finally:
        await c.aclose()


def wants(n: int) -> dict[str, Any]:
    return {"toolsListChanged": True, "resourceSubscriptions": [f"file:///{n}"]}


async def test_three_instances_one_upstream_listen_each_member_its_own(cluster: Cluster) -> None:
    for i in range(3):
        granted = await cluster.join(i, wants(i))
        assert granted == wants(i)  # each subscription acknowledged with what it asked for, wherever it landed
    await cluster.until(lambda: len(cluster.upstream.listens) == 1)
    (listen,) = cluster.upstream.listens.values()
    assert listen["filter"]["resourceSubscriptions"] == ["file:///0", "file:///1", "file:///2"]
    assert sorted(cluster.roles()) == ["follower", "follower", "leader"]
    for i in range(3):
        assert await cluster.upstream.notify(UPDATED, {"uri": f"file:///{i}"}) == 1
    assert await cluster.upstream.notify(TOOLS_CHANGED) == 1
    for i, member in enumerate(cluster.members):
        await member.wait_for(jsonrpc.notification(TOOLS_CHANGED))
        # the upstream sends on one listen in order and the channel keeps it: the update came first, only its own
        assert member.got == [jsonrpc.notification(UPDATED, {"uri": f"file:///{i}"}), jsonrpc.notification(TOOLS_CHANGED)]
    assert sum(hub.budget.open for hub in cluster.hubs) == 1  # --max-listens counts the upstream listens held here


async def test_leader_leaves_a_follower_takes_over(cluster: Cluster) -> None:
    for i in range(3):
        await cluster.join(i, wants(i))
    await cluster.until(lambda: len(cluster.upstream.listens) == 1 and sorted(cluster.roles()) == ["follower", "follower", "leader"])
    leader = next(i for i, hub in enumerate(cluster.hubs) if hub.budget.open == 1)
    await cluster.hubs[leader].leave(cluster.members[leader])  # its last session ends: it gives the lease up
    rest = [i for i in range(3) if i != leader]
    await cluster.until(lambda: len(cluster.upstream.listens) == 1 and sorted(cluster.roles()) == ["follower", "leader"])
    (listen,) = cluster.upstream.listens.values()
    assert listen["filter"]["resourceSubscriptions"] == [f"file:///{i}" for i in rest]
    for member in cluster.members:
        member.got.clear()
    assert await cluster.upstream.notify(TOOLS_CHANGED) == 1
    for i in rest:
        await cluster.members[i].wait_for(jsonrpc.notification(TOOLS_CHANGED))
    assert cluster.members[leader].got == []


async def test_leader_cut_off_from_the_store_is_replaced(cluster: Cluster) -> None:
    """A leader that can no longer reach the store (as a killed one) stops renewing: its lease lapses, another
    instance takes it and serves the third; the cut-off one keeps serving its own session with its own listen."""
    for i in range(3):
        await cluster.join(i, wants(i))
    await cluster.until(lambda: len(cluster.upstream.listens) == 1 and "leader" in cluster.roles())
    leader = next(i for i, hub in enumerate(cluster.hubs) if hub.budget.open == 1)
    cluster.views[leader].down = True
    await cluster.until(lambda: len(cluster.upstream.listens) == 2 and sum(h.budget.open for h in cluster.hubs) == 2
                        and cluster.roles().count("follower") == 1)
    for member in cluster.members:
        member.got.clear()
    assert await cluster.upstream.notify(TOOLS_CHANGED) == 2
    for member in cluster.members:
        await member.wait_for(jsonrpc.notification(TOOLS_CHANGED))
    cluster.views[leader].down = False  # back: it follows the new leader again
    await cluster.until(lambda: len(cluster.upstream.listens) == 1)


async def test_store_down_each_instance_listens_itself_then_one_again(cluster: Cluster) -> None:
    for i in range(3):
        await cluster.join(i, wants(i))
    await cluster.until(lambda: len(cluster.upstream.listens) == 1)
    for view in cluster.views:
        view.down = True
    await cluster.until(lambda: len(cluster.upstream.listens) == 3 and cluster.roles() == ["local"] * 3)
    for member in cluster.members:
        member.got.clear()
    assert await cluster.upstream.notify(TOOLS_CHANGED) == 3
    for member in cluster.members:
        await member.wait_for(jsonrpc.notification(TOOLS_CHANGED))
        assert member.got.count(jsonrpc.notification(TOOLS_CHANGED)) == 1
    # a subscription made while the store is down is served by the instance's own listen
    assert await cluster.join(0, {**wants(0), "resourceSubscriptions": ["file:///0", "file:///new"]})
    for view in cluster.views:
        view.down = False
    await cluster.until(lambda: len(cluster.upstream.listens) == 1 and sorted(cluster.roles()) == ["follower", "follower", "leader"])
    (listen,) = cluster.upstream.listens.values()
    assert listen["filter"]["resourceSubscriptions"] == ["file:///0", "file:///1", "file:///2", "file:///new"]
    assert await cluster.upstream.notify(UPDATED, {"uri": "file:///new"}) == 1
    await cluster.members[0].wait_for(jsonrpc.notification(UPDATED, {"uri": "file:///new"}))


async def test_keys_never_shared_across_principals(cluster: Cluster) -> None:
    cluster.members[1] = Member(cluster.upstream, cluster.settings, principal="bob")
    for i in range(3):
        await cluster.join(i, wants(i))
    await cluster.until(lambda: len(cluster.upstream.listens) == 2 and cluster.roles().count("leader") == 2)
    filters = sorted(tuple(listen["filter"]["resourceSubscriptions"]) for listen in cluster.upstream.listens.values())
    assert filters == [("file:///0", "file:///2"), ("file:///1",)]
    assert await cluster.upstream.notify(UPDATED, {"uri": "file:///1"}) == 1
    await cluster.members[1].wait_for(jsonrpc.notification(UPDATED, {"uri": "file:///1"}))
    assert await cluster.upstream.notify(TOOLS_CHANGED) == 2
    for member in cluster.members:
        await member.wait_for(jsonrpc.notification(TOOLS_CHANGED))
    assert [m.got.count(jsonrpc.notification(UPDATED, {"uri": "file:///1"})) for m in cluster.members] == [0, 1, 0]


async def test_keys_past_the_cap_listen_per_instance(cluster: Cluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lc, "MAX_LINKED_KEYS", 1)
    cluster.members[2] = Member(cluster.upstream, cluster.settings, principal="bob")
    await cluster.join(2, wants(2))  # bob's key is the first on instance 2: linked
    cluster.members.append(Member(cluster.upstream, cluster.settings, principal="bob"))
    await cluster.hubs[0].update(cluster.members[0], wants(0))  # alice's key on instance 0: linked
    await cluster.hubs[0].update(cluster.members[3], wants(3))  # bob's key on instance 0: past the cap
    assert cluster.hubs[0].cluster.counts["unlinked"] == 1  # type: ignore[union-attr]
    await cluster.until(lambda: len(cluster.upstream.listens) == 3)  # alice's, bob's led by 2, bob's alone on 0
    assert await cluster.upstream.notify(UPDATED, {"uri": "file:///3"}) == 1
    await cluster.members[3].wait_for(jsonrpc.notification(UPDATED, {"uri": "file:///3"}))


async def test_shutdown_bounded_when_the_store_hangs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listens, "CLOSE_DEADLINE_S", 1.0)
    c = Cluster(2)
    for i in range(2):
        await c.join(i, wants(i))
    await c.until(lambda: len(c.upstream.listens) == 1)
    for view in c.views:
        view.hang = True
    async with asyncio.timeout(DEADLINE):  # each hub gives its links at most listens.CLOSE_DEADLINE_S
        await c.aclose()
    assert not c.upstream.listens


async def test_a_drop_of_the_leaders_listen_reaches_the_followers_members() -> None:
    """The server ends the leader's listen: the leader's own members and the followers' alike are told what may have
    changed meanwhile (each list they rely on, each resource they subscribed), as after any dropped listen. (Ticks of
    1 s: the leader is back before its followers would find it silent; they learn of the gap from its epoch.)"""
    cluster = Cluster(3, tick=1.0)
    try:
        await _leader_drop(cluster)
    finally:
        await cluster.aclose()


async def _leader_drop(cluster: Cluster) -> None:
    for i in range(3):
        await cluster.join(i, wants(i))
    await cluster.until(lambda: len(cluster.upstream.listens) == 1 and sorted(cluster.roles()) == ["follower", "follower", "leader"])
    for member in cluster.members:
        member.got.clear()
    (key,) = cluster.upstream.listens
    cluster.upstream.end_listen(key)
    for i, member in enumerate(cluster.members):
        await member.wait_for(jsonrpc.notification(TOOLS_CHANGED))
        await member.wait_for(jsonrpc.notification(UPDATED, {"uri": f"file:///{i}"}))
    await cluster.until(lambda: len(cluster.upstream.listens) == 1)


async def test_a_stale_want_read_by_the_leader_loses_no_notification(cluster: Cluster) -> None:
    """The leader's copy of another instance's want may lag (a slower, older write read last): what its listen
    receives still goes on the channel, and the follower's members get what their own filters ask for."""
    for i in range(3):
        await cluster.join(i, wants(i))
    await cluster.until(lambda: len(cluster.upstream.listens) == 1 and sorted(cluster.roles()) == ["follower", "follower", "leader"])
    leader = next(hub for hub in cluster.hubs if hub.budget.open == 1)
    (group,) = leader.groups.values()
    stale = {m: {"toolsListChanged": True} for m in group.state.members if lc.is_remote(m)}
    assert lc.set_remote(group.state, stale)  # as if read before the followers subscribed
    others = [i for i, hub in enumerate(cluster.hubs) if hub is not leader]
    for i in others:
        assert await cluster.upstream.notify(UPDATED, {"uri": f"file:///{i}"}) == 1
        await cluster.members[i].wait_for(jsonrpc.notification(UPDATED, {"uri": f"file:///{i}"}))

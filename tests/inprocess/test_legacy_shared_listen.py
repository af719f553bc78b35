"""One upstream ``subscriptions/listen`` shared by the 2025 sessions of one principal and client identity, through
the real HTTP front over a ``ListeningUpstream`` (tests/inprocess/legacy_front_fakes.py): union filter, each
session receiving only what ITS filter asks for, never across principals or client capabilities, make-before-break
when the union changes, the listen closed when the last session leaves, ``--max-listens`` counting upstream listens.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from legacy_front_asgi import LegacyClient, StreamedResponse
from test_legacy_front_http import Env, check, make_env

from mcp_eras.bridge.translate import jsonrpc

pytestmark = pytest.mark.anyio

UPDATED = "notifications/resources/updated"
TOOLS_CHANGED = "notifications/tools/list_changed"


@pytest.fixture
async def env() -> AsyncIterator[Env]:
    async with make_env() as e:
        yield e


async def until_tools_changed(stream: StreamedResponse) -> list[dict[str, Any]]:
    """Every event up to and including the next tools/list_changed. The upstream sends on ONE listen in order, so
    when a session sees the list_changed sent last, it has seen everything sent to it before."""
    seen = []
    while True:
        _eid, note = await stream.next_event()
        seen.append(check(note))
        if note.get("method") == TOOLS_CHANGED:
            return seen


async def subscribe(client: LegacyClient, rid: int, uri: str) -> None:
    assert check(await client.rpc(jsonrpc.request(rid, "resources/subscribe", {"uri": uri}))) == {
        "jsonrpc": "2.0", "id": rid, "result": {}}


async def test_one_listen_per_principal_each_session_gets_only_its_own(env: Env) -> None:
    one, two = env.client("Bearer alice"), env.client("Bearer alice")
    await one.initialize()
    await two.initialize()
    s1, s2 = await one.get_stream(), await two.get_stream()
    (first,) = env.upstream.listens  # shared from the start
    await subscribe(one, 1, "file:///a")
    await subscribe(two, 1, "file:///b")
    (listen,) = env.upstream.listens
    assert first in env.upstream.closed_listens  # replaced make-before-break as the union grew
    assert env.upstream.listens[listen]["filter"]["resourceSubscriptions"] == ["file:///a", "file:///b"]
    assert await env.upstream.notify(UPDATED, {"uri": "file:///a"}) == 1
    assert await env.upstream.notify(UPDATED, {"uri": "file:///b"}) == 1
    assert await env.upstream.notify(TOOLS_CHANGED) == 1
    assert await until_tools_changed(s1) == [jsonrpc.notification(UPDATED, {"uri": "file:///a"}), jsonrpc.notification(TOOLS_CHANGED)]
    assert await until_tools_changed(s2) == [jsonrpc.notification(UPDATED, {"uri": "file:///b"}), jsonrpc.notification(TOOLS_CHANGED)]
    assert env.front.status()["listens"] == 1


async def test_never_across_principals_or_capabilities(env: Env) -> None:
    alice, bob, alice_sampling = env.client("Bearer alice"), env.client("Bearer bob"), env.client("Bearer alice")
    await alice.initialize()
    await bob.initialize()
    await alice_sampling.initialize({"sampling": {}})
    streams = [await c.get_stream() for c in (alice, bob, alice_sampling)]
    assert len(env.upstream.listens) == 3
    for n, client in enumerate((alice, bob, alice_sampling)):
        await subscribe(client, 1, f"file:///{n}")
    filters = sorted(tuple(listen["filter"]["resourceSubscriptions"]) for listen in env.upstream.listens.values())
    assert filters == [("file:///0",), ("file:///1",), ("file:///2",)]
    for n in range(3):
        assert await env.upstream.notify(UPDATED, {"uri": f"file:///{n}"}) == 1
    assert await env.upstream.notify(TOOLS_CHANGED) == 3
    for n, stream in enumerate(streams):
        assert await until_tools_changed(stream) == [jsonrpc.notification(UPDATED, {"uri": f"file:///{n}"}),
                                                     jsonrpc.notification(TOOLS_CHANGED)]


async def test_unsubscribe_narrows_leaving_keeps_last_leaving_closes(env: Env) -> None:
    one, two = env.client("Bearer alice"), env.client("Bearer alice")
    await one.initialize()
    await two.initialize()
    await subscribe(one, 1, "file:///a")
    await subscribe(two, 1, "file:///a")  # already in the union: no new listen
    await subscribe(two, 2, "file:///b")
    (listen,) = env.upstream.listens
    assert env.upstream.listens[listen]["filter"]["resourceSubscriptions"] == ["file:///a", "file:///b"]
    opened = len(env.upstream.closed_listens) + 1
    assert "result" in await two.rpc(jsonrpc.request(3, "resources/unsubscribe", {"uri": "file:///a"}))
    assert len(env.upstream.closed_listens) + 1 == opened  # "a" is still one's: the union did not change
    assert "result" in await two.rpc(jsonrpc.request(4, "resources/unsubscribe", {"uri": "file:///b"}))
    (narrowed,) = env.upstream.listens
    assert env.upstream.listens[narrowed]["filter"]["resourceSubscriptions"] == ["file:///a"]
    assert (await two.send("DELETE")).status == 200
    assert list(env.upstream.listens) == [narrowed]  # one still relies on it
    assert (await one.send("DELETE")).status == 200
    await env.upstream.wait_listens(lambda listens: not listens)  # the last session left
    assert env.front.status()["listens"] == 0 and not env.front.listens.groups


async def test_the_cap_counts_upstream_listens_not_sessions() -> None:
    async with make_env(legacy_listens_max=1) as e:
        clients = [e.client("Bearer alice") for _ in range(5)]
        for n, client in enumerate(clients):
            await client.initialize()
            await subscribe(client, 1, f"file:///{n}")
        assert len(e.upstream.listens) == 1 and e.front.status()["listens"] == 1
        assert "legacy_listens_max" not in e.front.status()["refused"]
        bob = e.client("Bearer bob")
        await bob.initialize()  # the budget is spent by alice's subscribed sessions: bob's initialize still works
        out = await bob.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": "file:///bob"}))
        assert check(out)["error"]["data"] == {"limit": "legacy_listens_max", "max": 1}
        # the refused subscription left alice's listen as it was
        (listen,) = e.upstream.listens
        assert e.upstream.listens[listen]["filter"]["resourceSubscriptions"] == [f"file:///{n}" for n in range(5)]


async def test_relisten_invalidates_each_session_for_its_own_filter(env: Env) -> None:
    one, two = env.client("Bearer alice"), env.client("Bearer alice")
    await one.initialize()
    await two.initialize()
    s1, s2 = await one.get_stream(), await two.get_stream()
    await subscribe(one, 1, "file:///a")
    await subscribe(two, 1, "file:///b")
    (current,) = env.upstream.listens
    env.upstream.end_listen(current)  # the upstream closes the shared stream
    await env.upstream.wait_listens(lambda listens: bool(listens) and current not in listens)
    want = {"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"}
    for stream, uri in ((s1, "file:///a"), (s2, "file:///b")):
        seen = [check((await stream.next_event())[1]) for _ in range(4)]
        assert {n["method"] for n in seen if n["method"] != UPDATED} == want
        assert [n["params"] for n in seen if n["method"] == UPDATED] == [{"uri": uri}]


async def test_reclaim_frees_a_shared_listen_only_when_all_its_sessions_linger() -> None:
    async with make_env(legacy_listens_max=1) as e:
        idle_one, idle_two = e.client("Bearer alice"), e.client("Bearer alice")
        await idle_one.initialize()
        await idle_two.initialize()  # both linger on alice's one listen
        (alice_listen,) = e.upstream.listens
        bob = e.client("Bearer bob")
        await bob.initialize()  # the cap is spent: alice's listen is reclaimed as a whole, bob gets his own
        (bob_listen,) = e.upstream.listens
        assert bob_listen != alice_listen and e.front.status()["listens"] == 1
        carol, carol_two = e.client("Bearer carol"), e.client("Bearer carol")
        await carol.initialize()  # bob's listen lingers alone: reclaimed for carol
        await carol.get_stream()  # one of carol's sessions is here now: her listen is not reclaimable
        await carol_two.initialize()
        dave = e.client("Bearer dave")
        await dave.initialize()
        out = await dave.rpc(jsonrpc.request(1, "resources/subscribe", {"uri": "file:///d"}))
        assert check(out)["error"]["data"] == {"limit": "legacy_listens_max", "max": 1}
        (carol_listen,) = e.upstream.listens
        assert carol_listen not in (alice_listen, bob_listen)

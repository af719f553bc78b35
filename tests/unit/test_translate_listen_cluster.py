"""The pure rules of one upstream listen per share key across instances
(``mcp_eras.bridge.translate.legacy_client.listen_cluster``): lease outcomes to roles and actions, remote members in
the union, channel messages checked and capped."""

from __future__ import annotations

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.legacy_client import listen as ll
from mcp_eras.bridge.translate.legacy_client import listen_cluster as lc


def co(role: str = lc.LOCAL, holder: str | None = None) -> lc.Coordination:
    """A coordination in ``role``; a follower has just heard its holder."""
    following = role == lc.FOLLOWER
    return lc.Coordination("me", role=role, holder=holder, followed=holder if following else None,
                           silent=0 if following else lc.STALE_TICKS)


def test_first_listen_source_by_lease() -> None:
    c = co()
    assert lc.attempted(c, lc.MINE, "me") == lc.UPSTREAM and c.role == lc.LEADER
    c = co()
    assert lc.attempted(c, lc.OTHER, "b") == lc.UPSTREAM and c.holder == "b" and c.role == lc.LOCAL  # never heard
    lc.heard(c, "b")
    assert lc.attempted(c, lc.OTHER, "b") == lc.CHANNEL  # heard lately: follow it
    assert lc.attempted(c, lc.OTHER, "c") == lc.UPSTREAM and not c.heard  # another holder: not yet
    c = co(lc.FOLLOWER, "b")
    assert lc.attempted(c, lc.OTHER, "b") == lc.CHANNEL
    c.silent = lc.STALE_TICKS
    assert lc.attempted(c, lc.OTHER, "b") == lc.UPSTREAM and c.role == lc.LOCAL  # silent too long
    c = co(lc.LEADER, "me")
    assert lc.attempted(c, lc.FAULT, None) == lc.UPSTREAM and c.role == lc.LOCAL and c.holder is None


def test_channel_open_outcomes() -> None:
    c = co(holder="b")
    lc.opened(c, lc.CHANNEL, True)
    assert (c.role, c.followed) == (lc.FOLLOWER, "b")
    assert lc.source(c) == lc.CHANNEL
    c = co(holder="b")
    lc.opened(c, lc.CHANNEL, False)  # nobody acknowledged in time: this instance listens itself
    assert c.role == lc.LOCAL and lc.source(c) == lc.UPSTREAM
    c = co(lc.FOLLOWER, "b")
    lc.opened(c, lc.UPSTREAM, True)
    assert c.role == lc.LOCAL


def test_only_the_holder_is_heard() -> None:
    c = co(lc.FOLLOWER, "b")
    assert not lc.heard(c, "c") and not c.heard
    assert not lc.heard(c, None)
    assert lc.heard(c, "b") and c.heard
    c = co(lc.LEADER, "me")
    assert not lc.heard(c, "me")


def test_tick_local_takes_a_free_lease_or_follows_a_heard_holder() -> None:
    c = co()
    assert lc.tick(c, lc.MINE, "me") == lc.PROMOTE and c.role == lc.LEADER
    assert lc.tick(c, lc.MINE, "me") == lc.ANNOUNCE
    c = co()
    assert lc.tick(c, lc.OTHER, "b") == lc.KEEP  # a holder not yet heard is not followed
    assert lc.tick(c, lc.OTHER, "b") == lc.KEEP
    lc.heard(c, "b")
    assert lc.tick(c, lc.OTHER, "b") == lc.FOLLOW


def test_tick_follower_ends_on_fault_silence_new_holder_or_own_lease() -> None:
    c = co(lc.FOLLOWER, "b")
    assert lc.tick(c, lc.FAULT, None) == lc.END_FOLLOW
    c = co(lc.FOLLOWER, "b")
    actions = []
    for _ in range(lc.STALE_TICKS):
        actions.append(lc.tick(c, lc.OTHER, "b"))
    assert actions == [lc.KEEP] * (lc.STALE_TICKS - 1) + [lc.END_FOLLOW]
    c = co(lc.FOLLOWER, "b")
    lc.heard(c, "b")
    assert lc.tick(c, lc.OTHER, "b") == lc.KEEP and c.silent == 0
    assert lc.tick(c, lc.OTHER, "c") == lc.END_FOLLOW  # another holder: the gap may have lost notifications
    c = co(lc.FOLLOWER, "b")
    assert lc.tick(c, lc.MINE, "me") == lc.END_FOLLOW  # the lease lapsed and is ours: re-listen upstream


def test_tick_leader_demoted_on_fault_or_deposed() -> None:
    c = co(lc.LEADER, "me")
    assert lc.tick(c, lc.FAULT, None) == lc.KEEP and c.role == lc.LOCAL
    c = co(lc.LEADER, "me")
    assert lc.tick(c, lc.OTHER, "b") == lc.KEEP and c.role == lc.LOCAL
    lc.heard(c, "b")
    assert lc.tick(c, lc.OTHER, "b") == lc.FOLLOW


def test_remote_members_join_the_union_only_while_local_ones_exist() -> None:
    state = ll.ListenState()
    ll.set_member(state, "m1", {"toolsListChanged": True})
    wants = [lc.want("b", {"resourceSubscriptions": ["file:///b"], "junk": 1}), lc.want("me", {"toolsListChanged": True}),
             {"instance": 3}, "x", lc.want("c", {})]
    remote = lc.remote_members(wants, "me")
    assert remote == {"@b": {"resourceSubscriptions": ["file:///b"]}}
    assert lc.set_remote(state, remote) and not lc.set_remote(state, remote)
    step = ll.plan(state)
    assert isinstance(step, ll.Open) and step.filter == {"toolsListChanged": True, "resourceSubscriptions": ["file:///b"]}
    assert lc.local_filter(state) == {"toolsListChanged": True}
    ll.set_member(state, "m1", {})
    lc.set_remote(state, remote)  # no local member: a leader serves nobody else
    assert state.members == {}
    assert lc.remote_members([lc.want(f"i{n}", {"toolsListChanged": True}) for n in range(500)], "me").__len__() == lc.MAX_REMOTE


def test_notifications_of_the_current_listen_published_while_others_are_served() -> None:
    state = ll.ListenState()
    ll.set_member(state, "m1", {"resourceSubscriptions": ["file:///a"]})
    step = ll.plan(state)
    assert isinstance(step, ll.Open)
    ll.on_ack(state, step.listen_id)
    ll.opened(state, step.listen_id, step.filter, step.filter)
    note = jsonrpc.notification("notifications/resources/updated", {"uri": "file:///b"})
    assert not lc.to_publish(state, step.listen_id, note)  # nobody else served
    lc.set_remote(state, {"@b": {"resourceSubscriptions": ["file:///a"]}})
    # published even though @b's filter (as this instance last read it) does not ask for it: b decides per member
    assert lc.to_publish(state, step.listen_id, note)
    assert not lc.to_publish(state, step.listen_id, jsonrpc.notification("notifications/subscriptions/acknowledged"))
    assert not lc.to_publish(state, step.listen_id, jsonrpc.notification("notifications/message", {"level": "info"}))
    assert not lc.to_publish(state, "listen-0", note)  # an older listen's tail
    ll.close(state)
    assert not lc.to_publish(state, step.listen_id, note)


def test_replace_forces_a_new_listen_id_with_the_union() -> None:
    state = ll.ListenState(prefix="p")
    assert lc.replace(state) is None
    ll.set_member(state, "m1", {"toolsListChanged": True})
    one, two = lc.replace(state), lc.replace(state)
    assert one is not None and two is not None and one.listen_id != two.listen_id
    assert one.filter == {"toolsListChanged": True}


def test_channel_messages_checked_and_capped() -> None:
    note = jsonrpc.notification("notifications/tools/list_changed")
    assert lc.read(lc.note_message("a", note)) == lc.Heard("note", "a", note)
    assert lc.note_message("a", jsonrpc.notification("x", {"blob": "y" * lc.MAX_MESSAGE_BYTES})) is None
    big = {"t": "note", "from": "a", "n": {"method": "x", "params": {"blob": "y" * lc.MAX_MESSAGE_BYTES}}}
    assert lc.read(big) is None
    assert lc.read(lc.ack_message("a", {"toolsListChanged": True, "bogus": 1}, 2)) == lc.Heard("ack", "a", {"toolsListChanged": True}, 2)
    assert lc.read({"t": "ack", "from": "a", "filter": {}, "epoch": -1}) == lc.Heard("ack", "a", {}, 0)
    assert lc.read({"t": "ack", "from": "a", "filter": {}, "epoch": True}) == lc.Heard("ack", "a", {}, 0)
    assert lc.read(lc.want_message("a")) == lc.Heard("want", "a")
    assert lc.read(lc.bye_message("a")) == lc.Heard("bye", "a")
    for bad in (None, [], {"t": "note", "from": 1}, {"t": "note", "from": "a", "n": "x"}, {"t": "ack", "from": "a"},
                {"t": "other", "from": "a"}):
        assert lc.read(bad) is None


def test_digest_hides_the_share_key() -> None:
    key = '["alice",{"x":1}]'
    assert "alice" not in lc.digest(key) and lc.digest(key) == lc.digest(key) and len(lc.digest(key)) == 32


def test_a_drop_of_the_leaders_own_listen_ends_the_followers() -> None:
    state = ll.ListenState()
    ll.set_member(state, "m1", {"toolsListChanged": True})
    step = ll.plan(state)
    assert isinstance(step, ll.Open)
    ll.on_ack(state, step.listen_id)
    ll.opened(state, step.listen_id, step.filter, step.filter)
    assert lc.epoch(state) == 0
    ll.ended(state, step.listen_id, ll.DROPPED)
    assert lc.epoch(state) == 1
    c = co(lc.FOLLOWER, "b")
    lc.followed_at(c, 0)
    assert not lc.leader_dropped(c, lc.Heard("ack", "b", {}, 0))
    assert not lc.leader_dropped(c, lc.Heard("ack", "x", {}, 5))  # not the followed leader
    assert lc.leader_dropped(c, lc.Heard("ack", "b", {}, 1))
    lc.followed_at(c, 1)
    assert not lc.leader_dropped(c, lc.Heard("ack", "b", {}, 1))

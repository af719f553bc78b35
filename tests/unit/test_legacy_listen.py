"""mcp_eras.bridge.translate.legacy_client.listen: one upstream listen shared by the 2025 sessions of one principal and
client identity -- union filter, per-member fan-out, make-before-break replacement when the union changes, the
last member's leaving.

Notifications the plan delivers are validated against the 2025-11-25 schema; listen acknowledgements against
the 2026-07-28 schema.
"""

from __future__ import annotations

import json

import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.eras import META_SUBSCRIPTION_ID
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import listen as ll

import spec

TOOLS = {"toolsListChanged": True}
WITH_A = {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]}
WITH_B = {"toolsListChanged": True, "resourceSubscriptions": ["file:///b"]}
ONLY_B = {"resourceSubscriptions": ["file:///b"]}


def tagged(method: str, listen_id: str, **params: object) -> dict[str, object]:
    return jsonrpc.notification(method, {**params, "_meta": {META_SUBSCRIPTION_ID: listen_id}})


def ack(listen_id: str, granted: dict[str, object]) -> dict[str, object]:
    msg = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
           "params": {"_meta": {META_SUBSCRIPTION_ID: listen_id}, "notifications": granted}}
    spec.modern("SubscriptionsAcknowledgedNotification", msg)
    return msg


def open_and_ack(state: ll.ListenState, expect: dict[str, object], tighten: bool = True) -> tuple[str, ll.Opened]:
    step = ll.plan(state, tighten)
    assert isinstance(step, ll.Open) and step.filter == expect
    ll.on_ack(state, step.listen_id)
    return step.listen_id, ll.opened(state, step.listen_id, step.filter, step.filter)


def group(**members: dict[str, object]) -> ll.ListenState:
    state = ll.ListenState(prefix="listen-1")
    for member, filt in members.items():
        ll.set_member(state, member, filt)
    return state


def identity(caps: dict[str, object] | None = None, name: str = "client", level: str | None = None) -> lf.SessionIdentity:
    return lf.SessionIdentity("2025-11-25", caps or {}, {"name": name, "version": "1"}, log_level=level)


def test_share_key_is_principal_and_listen_meta() -> None:
    key = ll.share_key("alice", identity())
    assert ll.share_key("alice", identity(level="debug")) == key  # a listen carries no log level
    assert ll.share_key("bob", identity()) != key  # never across principals
    assert ll.share_key(None, identity()) != key
    assert ll.share_key("alice", identity({"sampling": {}})) != key  # other capabilities: another caller to the server
    assert ll.share_key("alice", identity(name="other")) != key  # other clientInfo too


def test_union_fan_out_to_the_members_that_asked() -> None:
    state = group(s1=WITH_A, s2=WITH_B, s3=ONLY_B)
    listen, done = open_and_ack(state, {"toolsListChanged": True, "resourceSubscriptions": ["file:///a", "file:///b"]})
    assert done == ll.Opened([], {})
    a = ll.admit(state, listen, tagged("notifications/resources/updated", listen, uri="file:///a"))
    assert a is not None and a.members == ["s1"]
    assert a.note == {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///a"}}
    spec.legacy("ResourceUpdatedNotification", a.note)
    b = ll.admit(state, listen, tagged("notifications/resources/updated", listen, uri="file:///b"))
    assert b is not None and b.members == ["s2", "s3"]
    tools = ll.admit(state, listen, tagged("notifications/tools/list_changed", listen))
    assert tools is not None and tools.members == ["s1", "s2"]  # s3 has no GET stream: no list_changed for it
    spec.legacy("ToolListChangedNotification", tools.note)
    assert ll.admit(state, listen, tagged("notifications/resources/updated", listen, uri="file:///c")) is None
    # A sub-resource of a subscribed URI concerns its subscriber (2025 allows it); nothing else has an owner.
    sub = ll.admit(state, listen, tagged("notifications/resources/updated", listen, uri="file:///a/x"))
    assert sub is not None and sub.members == ["s1"]
    assert ll.admit(state, listen, tagged("notifications/tasks/status", listen, taskId="t")) is None
    assert ll.admit(state, listen, tagged("notifications/message", listen, level="info", data="x")) is None
    assert ll.ListenState.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_union_change_replaces_make_before_break_without_duplicates() -> None:
    state = group(s1=TOOLS, s2=TOOLS)
    old, _ = open_and_ack(state, TOOLS)
    ll.set_member(state, "s2", WITH_A)
    step = ll.plan(state, tighten=False)
    assert isinstance(step, ll.Open) and step.filter == WITH_A and state.current == old
    change = tagged("notifications/tools/list_changed", old)
    before = ll.admit(state, old, change)
    assert before is not None and before.members == ["s1", "s2"]  # the old listen serves until the new one is acked
    assert ll.admit(state, step.listen_id, ack(step.listen_id, WITH_A)) is None
    ll.on_ack(state, step.listen_id)
    assert ll.admit(state, old, change) is None  # during the overlap only the newest acknowledged listen delivers
    updated = ll.admit(state, step.listen_id, tagged("notifications/resources/updated", step.listen_id, uri="file:///a"))
    assert updated is not None and updated.members == ["s2"]
    assert ll.opened(state, step.listen_id, WITH_A, WITH_A) == ll.Opened([old], {})
    assert ll.admit(state, old, change) is None  # retired for good
    # Another member subscribing what the union already has needs no new listen.
    ll.set_member(state, "s1", WITH_A)
    assert ll.plan(state, tighten=False) == ll.Keep(WITH_A)


def test_leaving_keeps_a_covering_listen_unsubscribe_tightens_last_leaves_stops() -> None:
    state = group(s1=WITH_A, s2=WITH_B)
    first, _ = open_and_ack(state, {"toolsListChanged": True, "resourceSubscriptions": ["file:///a", "file:///b"]})
    ll.set_member(state, "s2", {})  # s2's session ended
    assert ll.plan(state, tighten=False) == ll.Keep(state.acked)
    assert ll.admit(state, first, tagged("notifications/resources/updated", first, uri="file:///b")) is None
    ll.set_member(state, "s1", TOOLS)  # s1 unsubscribed: the listen is narrowed
    second, done = open_and_ack(state, TOOLS)
    assert done.retire == [first]
    ll.set_member(state, "s1", {})
    assert ll.plan(state, tighten=False) == ll.Stop([second])
    assert state.current is None and not state.members


def test_granted_is_what_the_ack_covers_of_one_member() -> None:
    acked = {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]}
    assert ll.granted({"toolsListChanged": True, "promptsListChanged": True,
                       "resourceSubscriptions": ["file:///a", "file:///b"]}, acked) == acked
    assert ll.granted(ONLY_B, acked) == {}


def test_unsupported_is_remembered() -> None:
    state = group(s1=WITH_A)
    step = ll.plan(state)
    assert isinstance(step, ll.Open)
    ll.open_failed(state, step.listen_id, -32601)
    with pytest.raises(jsonrpc.FrameError) as info:
        ll.plan(state)
    assert info.value.code == -32601
    ll.set_member(state, "s1", {})
    assert ll.plan(state) == ll.Stop([])


def test_a_failed_open_is_not_remembered_as_unsupported_for_other_codes() -> None:
    state = group(s1=TOOLS)
    step = ll.plan(state)
    assert isinstance(step, ll.Open)
    ll.open_failed(state, step.listen_id, -32603)
    assert isinstance(ll.plan(state), ll.Open)


def test_relisten_backoff_and_per_member_invalidation() -> None:
    state = group(s1=WITH_A, s2=ONLY_B)
    union = {"toolsListChanged": True, "resourceSubscriptions": ["file:///a", "file:///b"]}
    first, _ = open_and_ack(state, union)
    reopen = ll.ended(state, first)
    assert reopen == ll.Reopen(0.5, first) and state.current is None
    assert ll.reopen_failed(state, reopen) == ll.Reopen(1.0, first)
    last = reopen
    for _ in range(10):
        last = ll.reopen_failed(state, last) or last
    assert last.delay == ll.BACKOFF_MAX
    step = ll.reopen(state)
    assert isinstance(step, ll.Open) and step.filter == union
    done = ll.opened(state, step.listen_id, union, union)
    assert state.backoff == ll.BACKOFF_INITIAL and done.retire == []
    # Each member is told what may have changed of ITS filter, nothing of the others'.
    assert done.invalidate == {
        "s1": [jsonrpc.notification("notifications/tools/list_changed"),
               jsonrpc.notification("notifications/resources/updated", {"uri": "file:///a"})],
        "s2": [jsonrpc.notification("notifications/resources/updated", {"uri": "file:///b"})],
    }
    for notes in done.invalidate.values():
        for note in notes:
            spec.legacy("ServerNotification", note)
    assert ll.opened(state, step.listen_id, union, union).invalidate == {}  # once


def test_no_relisten_when_replaced_moved_on_or_closed() -> None:
    state = group(s1=TOOLS)
    first, _ = open_and_ack(state, TOOLS)
    ll.set_member(state, "s1", WITH_A)
    second, done = open_and_ack(state, WITH_A)
    assert done.retire == [first]
    assert ll.ended(state, first) is None  # it was replaced: its end is expected
    reopen = ll.ended(state, second)
    assert reopen is not None
    third, _ = open_and_ack(state, WITH_A)  # a member change re-opened first
    assert ll.reopen(state) is None
    ll.set_member(state, "s1", {})
    assert ll.ended(state, "listen-x") is None
    assert ll.close(state) == [third]
    assert ll.ended(state, third) is None
    assert ll.plan(state) == ll.Keep({})
    assert ll.reopen_failed(state, reopen) is None


def test_listen_budget() -> None:
    budget = ll.ListenBudget(max=1)
    ll.take(budget)
    with pytest.raises(jsonrpc.FrameError) as info:
        ll.take(budget)
    assert info.value.code == -32000 and info.value.data == {"limit": "legacy_listens_max", "max": 1}
    assert budget.refused == 1
    ll.take(budget, replacing=True)  # make-before-break of a listen already counted
    assert budget.open == 2
    ll.give(budget)
    ll.give(budget)
    ll.give(budget)
    assert budget.open == 0
    ll.take(budget)


def test_the_budget_is_spent_unless_a_group_replaces_its_own_listen() -> None:
    budget = ll.ListenBudget(max=1)
    assert not ll.spent(budget, replacing=False)
    ll.take(budget)
    assert ll.spent(budget, replacing=False) and not ll.spent(budget, replacing=True)


def test_a_listen_refused_before_its_acknowledgement_keeps_the_upstreams_error() -> None:
    refused = ll.refused_before_ack(jsonrpc.error_response("l1", -32602, "Invalid params: notifications filter is required"))
    assert refused is not None and refused.code == -32602 and refused.message.startswith("Invalid params")
    assert ll.refused_before_ack({"jsonrpc": "2.0", "id": "l1", "error": {}}).message == "listen failed"  # type: ignore[union-attr]
    assert ll.refused_before_ack(None) is None and ll.refused_before_ack(jsonrpc.result_response("l1", {})) is None


def test_the_listen_to_free_is_the_groups_whose_last_member_lingered_longest() -> None:
    assert ll.longest_lingering([([5.0, 9.0], "a"), ([7.0, 8.0], "b"), ([1.0, None], "busy"), ([], "empty")]) == "b"
    assert ll.longest_lingering([([None], "busy")]) is None and ll.longest_lingering([]) is None

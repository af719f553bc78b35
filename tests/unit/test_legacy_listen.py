"""mcp_eras.bridge.translate.legacy_listen: make-before-break replacement of a 2025 session's upstream listen.

Notifications the plan delivers are validated against the 2025-11-25 schema; listen requests and
acknowledgements are the 2026-07-28 examples.
"""

from __future__ import annotations

import json

import pytest

from mcp_eras.bridge import jsonrpc
from mcp_eras.bridge.eras import META_SUBSCRIPTION_ID
from mcp_eras.bridge.translate import legacy_listen as ll

import spec

TOOLS = {"toolsListChanged": True}
WITH_A = {"toolsListChanged": True, "resourceSubscriptions": ["file:///a"]}


def tagged(method: str, listen_id: str, **params: object) -> dict[str, object]:
    return jsonrpc.notification(method, {**params, "_meta": {META_SUBSCRIPTION_ID: listen_id}})


def open_and_ack(state: ll.ListenState, filt: dict[str, object]) -> tuple[str, list[str]]:
    step = ll.plan(state, filt)
    assert isinstance(step, ll.Open) and step.filter == filt
    ll.on_ack(state, step.listen_id)
    return step.listen_id, ll.opened(state, step.listen_id, filt, filt)


def test_first_listen_then_keep() -> None:
    state = ll.ListenState()
    first, retire = open_and_ack(state, TOOLS)
    assert retire == [] and state.current == first
    assert ll.plan(state, TOOLS) == ll.Keep(TOOLS)
    assert ll.ListenState.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_replacement_is_make_before_break_without_duplicates() -> None:
    state = ll.ListenState()
    old, _ = open_and_ack(state, TOOLS)
    step = ll.plan(state, WITH_A)
    assert isinstance(step, ll.Open) and state.current == old  # the old listen serves until the new one is acked
    change = tagged("notifications/tools/list_changed", old)
    out = ll.admit(state, old, change)
    assert out == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    spec.legacy("ToolListChangedNotification", out)
    ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
           "params": {"_meta": {META_SUBSCRIPTION_ID: step.listen_id}, "notifications": WITH_A}}
    spec.modern("SubscriptionsAcknowledgedNotification", ack)
    assert ll.admit(state, step.listen_id, ack) is None
    ll.on_ack(state, step.listen_id)
    assert ll.ack_filter(ack) == WITH_A
    # During the overlap only the newest acknowledged listen delivers.
    assert ll.admit(state, old, change) is None
    updated = ll.admit(state, step.listen_id, tagged("notifications/resources/updated", step.listen_id, uri="file:///a"))
    assert updated == {"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "file:///a"}}
    spec.legacy("ResourceUpdatedNotification", updated)
    assert ll.opened(state, step.listen_id, WITH_A, WITH_A) == [old]
    assert ll.admit(state, old, change) is None  # retired for good


def test_empty_filter_stops_and_unsupported_is_remembered() -> None:
    state = ll.ListenState()
    first, _ = open_and_ack(state, TOOLS)
    assert ll.plan(state, {}) == ll.Stop([first])
    assert state.current is None
    step = ll.plan(state, WITH_A)
    assert isinstance(step, ll.Open)
    ll.open_failed(state, step.listen_id, -32601)
    with pytest.raises(jsonrpc.FrameError) as info:
        ll.plan(state, WITH_A)
    assert info.value.code == -32601
    assert ll.plan(state, {}) == ll.Stop([])


def test_a_failed_open_is_not_remembered_as_unsupported_for_other_codes() -> None:
    state = ll.ListenState()
    step = ll.plan(state, TOOLS)
    assert isinstance(step, ll.Open)
    ll.open_failed(state, step.listen_id, -32603)
    assert isinstance(ll.plan(state, TOOLS), ll.Open)


def test_relisten_backoff_and_invalidation() -> None:
    state = ll.ListenState()
    first, _ = open_and_ack(state, WITH_A)
    reopen = ll.ended(state, first)
    assert reopen == ll.Reopen(0.5, WITH_A)
    assert ll.reopen_failed(state, WITH_A) == ll.Reopen(1.0, WITH_A)
    for _ in range(10):
        last = ll.reopen_failed(state, WITH_A)
    assert last is not None and last.delay == ll.BACKOFF_MAX
    step = ll.reopen(state, WITH_A)
    assert isinstance(step, ll.Open)
    ll.opened(state, step.listen_id, WITH_A, WITH_A)
    assert state.backoff == ll.BACKOFF_INITIAL
    notes = ll.invalidations(WITH_A)
    assert [n["method"] for n in notes] == ["notifications/tools/list_changed", "notifications/resources/updated"]
    spec.legacy("ToolListChangedNotification", notes[0])
    spec.legacy("ResourceUpdatedNotification", notes[1])


def test_no_relisten_for_retired_or_closed_listens() -> None:
    state = ll.ListenState()
    first, _ = open_and_ack(state, TOOLS)
    second, retired = open_and_ack(state, WITH_A)
    assert retired == [first]
    assert ll.ended(state, first) is None  # it was replaced: its end is expected
    assert ll.reopen(state, TOOLS) is None  # the session moved on to another filter
    assert ll.close(state) == [second]
    assert ll.ended(state, second) is None
    assert ll.plan(state, TOOLS) == ll.Keep({})
    assert ll.reopen_failed(state, TOOLS) is None


def test_only_change_notifications_reach_the_session() -> None:
    state = ll.ListenState()
    first, _ = open_and_ack(state, TOOLS)
    assert ll.admit(state, first, tagged("notifications/message", first, level="info", data="x")) is None
    assert ll.admit(state, first, jsonrpc.notification("notifications/cancelled", {"requestId": first})) is None


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

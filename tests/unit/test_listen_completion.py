"""Issue #33 item 8, the 2026-07-28 erratum to ``subscriptions/listen``: a listen its server ends gracefully closes
with a completion result (schema ``SubscriptionsListenResult``: ``resultType: "complete"``, ``_meta`` naming the
listen as ``io.modelcontextprotocol/subscriptionId``); a stream closed without it is an abrupt drop. The frame the
bridge emits validates against the 2026 schema; as a client, the bridge tells the two endings apart."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.eras import META_SUBSCRIPTION_ID
from mcp_eras.bridge.translate.legacy_client import listen as ll
from mcp_eras.bridge.translate.legacy_server import listen

import spec


@pytest.mark.parametrize("listen_id", ["listen-1", 7])
def test_the_completion_the_bridge_emits_is_the_schemas(listen_id: Any) -> None:
    frame = listen.listen_completion(listen_id)
    spec.modern("SubscriptionsListenResultResponse", frame)
    assert frame["id"] == listen_id and frame["result"]["_meta"][META_SUBSCRIPTION_ID] == listen_id
    if listen_id == "listen-1":
        assert frame == spec.example("SubscriptionsListenResultResponse")  # the spec's own example, to the byte


@pytest.mark.parametrize(("resp", "kind"), [
    (jsonrpc.result_response("listen-3", {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: "listen-3"}}), ll.COMPLETE),
    (jsonrpc.result_response("listen-3", {"_meta": {META_SUBSCRIPTION_ID: "listen-3"}}), ll.COMPLETE),  # absent: complete
    (None, ll.DROPPED),  # the stream closed, the transport failed
    (jsonrpc.error_response("listen-3", -32603, "Upstream closed the response stream without a response"), ll.DROPPED),
    (jsonrpc.result_response("listen-3", {"resultType": "complete"}), ll.DROPPED),  # not this listen's completion
    (jsonrpc.result_response("listen-3", {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: "listen-2"}}), ll.DROPPED),
    (jsonrpc.result_response("listen-3", {"resultType": "input_required", "_meta": {META_SUBSCRIPTION_ID: "listen-3"}}), ll.DROPPED),
])
def test_end_kind(resp: Any, kind: str) -> None:
    assert ll.end_kind(resp, "listen-3") == kind


def test_both_endings_relisten_with_invalidations_and_are_counted_apart() -> None:
    state = ll.ListenState()
    ll.set_member(state, "m", {"toolsListChanged": True})
    step = ll.plan(state)
    assert isinstance(step, ll.Open)
    for kind in (ll.COMPLETE, ll.DROPPED, ll.DROPPED):
        ll.on_ack(state, step.listen_id)
        ll.opened(state, step.listen_id, step.filter, step.filter)
        reopen = ll.ended(state, step.listen_id, kind)
        assert reopen is not None  # the member still relies on a listen
        step = ll.reopen(state)
        assert isinstance(step, ll.Open)
        ll.on_ack(state, step.listen_id)
        done = ll.opened(state, step.listen_id, step.filter, step.filter)
        assert done.invalidate == {"m": [jsonrpc.notification("notifications/tools/list_changed")]}
        state.current = step.listen_id
    assert (state.completed, state.dropped) == (1, 2)
    assert ll.ListenState.from_json(state.to_json()) == state

"""subscriptions/listen from a 2025 session's notifications, with the spec's listen request example."""

from __future__ import annotations

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.legacy_server import listen

import spec


def test_listen_ack_and_events() -> None:
    server_caps = {"tools": {"listChanged": True}, "resources": {"subscribe": True}}
    requested = spec.example("SubscriptionsListenRequest")["params"]["notifications"]
    uris = listen.requested_resource_uris(requested, server_caps)
    acked = listen.acknowledged_filter(requested, server_caps, uris)
    ack = listen.ack_notification("listen-1", acked)
    spec.modern("SubscriptionsAcknowledgedNotification", ack)
    assert acked == {"toolsListChanged": True, "resourceSubscriptions": ["file:///project/config.json"]}
    tools = listen.listen_event(jsonrpc.notification("notifications/tools/list_changed"), "listen-1", acked)
    spec.modern("ToolListChangedNotification", tools)
    assert tools["params"]["_meta"] == {eras.META_SUBSCRIPTION_ID: "listen-1"}
    updated = listen.listen_event(jsonrpc.notification("notifications/resources/updated", {"uri": "file:///project/config.json"}),
                                  7, acked)
    spec.modern("ResourceUpdatedNotification", updated)
    # A legacy server may send sub-resource URIs: delivered; unrelated ones and unrequested kinds: not.
    sub = jsonrpc.notification("notifications/resources/updated", {"uri": "file:///project/config.json/x"})
    assert listen.listen_event(sub, 7, acked)
    assert listen.listen_event(jsonrpc.notification("notifications/resources/updated", {"uri": "file:///other"}), 7, acked) is None
    assert listen.listen_event(jsonrpc.notification("notifications/prompts/list_changed"), 7, acked) is None
    spec.modern("SubscriptionsListenResultResponse", jsonrpc.result_response("listen-1", listen.listen_closed_result("listen-1")))


def test_nothing_is_acknowledged_that_the_server_cannot_send() -> None:
    requested = {"toolsListChanged": True, "promptsListChanged": True, "resourceSubscriptions": ["file:///a"]}
    assert listen.requested_resource_uris(requested, {"resources": {}}) == []  # no subscribe capability
    assert listen.acknowledged_filter(requested, {"tools": {}}, []) == {}  # no listChanged


def test_resync_tells_every_listener_what_may_have_changed() -> None:
    notes = listen.resync_notes(["file:///a"])
    for note in notes[:-1]:
        assert note["method"] in listen.LIST_CHANGED
        spec.legacy("JSONRPCNotification", note)
    assert notes[-1] == jsonrpc.notification("notifications/resources/updated", {"uri": "file:///a"})
    spec.legacy("ResourceUpdatedNotification", notes[-1])

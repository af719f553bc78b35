"""translate.legacy_client.routing: where the upstream's notifications during a 2025 request go, with 2025-11-25
schema checks on what reaches the client."""

from __future__ import annotations

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import session as ls
from mcp_eras.bridge.translate.legacy_client.routing import NoteTo, route_note

import spec

INITIALIZE = jsonrpc.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                               "clientInfo": {"name": "c", "version": "1"}})


def state() -> ls.SessionState:
    identity = lf.parse_initialize(INITIALIZE["params"])
    discover = spec.example("DiscoverResult", "server-capabilities-discovery.json")
    return ls.open_session(identity, discover, {"name": "b", "version": "1"}, now=0.0, idle_timeout=60.0)[0]


def test_progress_goes_on_the_request_stream_while_it_increases() -> None:
    session = state()
    note = jsonrpc.notification("notifications/progress", {"progressToken": "t", "progress": 1})
    assert route_note(session, None, note) == (NoteTo.REQUEST, note)
    assert route_note(session, None, note) is None  # not increasing: dropped
    spec.legacy("ProgressNotification", note)


def test_logs_follow_the_level_and_list_changes_go_to_the_session() -> None:
    session = state()
    log = jsonrpc.notification("notifications/message", {"level": "warning", "data": "w"})
    assert route_note(session, "info", log) == (NoteTo.REQUEST, log)
    assert route_note(session, "error", log) is None and route_note(session, None, log) is None
    changed = jsonrpc.notification("notifications/tools/list_changed", {"_meta": {eras.META_SUBSCRIPTION_ID: "l1"}})
    routed = route_note(session, None, changed)
    assert routed is not None and routed[0] is NoteTo.SESSION and routed[1]["method"] == "notifications/tools/list_changed"
    spec.legacy("ToolListChangedNotification", routed[1])
    assert route_note(session, None, jsonrpc.notification("notifications/subscriptions/acknowledged", {})) is None

"""mcp_eras.bridge.translate.modern_upstream: wire ids, discover caching and stdio notification routing toward a
2026-07-28 server, with the spec's example messages; what reaches the caller is validated against the 2026 schema."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate import modern_upstream as mu
from mcp_eras.bridge.translate.eras import META_SUBSCRIPTION_ID

import spec


@dataclass
class Entry:
    method: str
    progress_token: Any = None
    wants_logs: bool = False


def test_bridge_meta_is_a_valid_request_meta() -> None:
    req = jsonrpc.request("d", "server/discover", {"_meta": mu.bridge_meta({"name": "mcp-bridge", "version": "1"})})
    spec.modern("DiscoverRequest", req)


def test_retagging_gives_the_caller_its_ids() -> None:
    result = {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: 7}}
    out = mu.retag_response(jsonrpc.result_response(7, result), 7, "caller-1")
    assert out["id"] == "caller-1" and out["result"]["_meta"][META_SUBSCRIPTION_ID] == "caller-1"
    spec.modern("JSONRPCResultResponse", out)
    note = spec.example("ToolListChangedNotification")
    tagged = {**note, "params": {**(note.get("params") or {}), "_meta": {META_SUBSCRIPTION_ID: 7}}}
    back = mu.retag_notification(tagged, 7, "caller-1")
    assert back["params"]["_meta"][META_SUBSCRIPTION_ID] == "caller-1"
    spec.modern("ToolListChangedNotification", back)
    assert mu.retag_notification(tagged, 8, "x") is tagged  # another listen's: untouched


def test_is_response_for_and_idless_errors() -> None:
    assert mu.is_response_for(jsonrpc.result_response(3, {}), 3)
    assert not mu.is_response_for(jsonrpc.result_response(4, {}), 3)
    assert not mu.is_response_for({"jsonrpc": "1.0", "id": 3, "result": {}}, 3)
    assert not mu.is_response_for(None, 3)
    idless = mu.idless_error({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Bad Request"}}, 5)
    assert idless == {"jsonrpc": "2.0", "id": 5, "error": {"code": -32600, "message": "Bad Request"}}
    assert mu.idless_error(jsonrpc.result_response(1, {}), 5) is None


def test_discover_cache_honours_ttl_and_scope() -> None:
    state = mu.DiscoverCacheState()
    private = {**spec.example("DiscoverResult"), "ttlMs": 1000, "cacheScope": "private"}
    mu.cache_put(state, "alice", private, now=10.0)
    assert mu.cache_get(state, "alice", now=10.5) is private
    assert mu.cache_get(state, "bob", now=10.5) is None
    assert mu.cache_get(state, "alice", now=11.0) is None  # expired
    public = {**private, "cacheScope": "public"}
    mu.cache_put(state, None, public, now=20.0)
    assert mu.cache_get(state, "bob", now=20.1) is public
    mu.cache_put(state, "carol", {**private, "ttlMs": 0}, now=30.0)
    assert mu.cache_get(state, "carol", now=30.0) is None
    mu.cache_put(state, None, {**private, "ttlMs": True}, now=30.0)
    assert mu.cache_get(state, None, now=30.0) is None


def test_discover_outcome() -> None:
    result = spec.example("DiscoverResult")
    assert mu.discover_outcome(jsonrpc.result_response(1, result)) is result
    refused = spec.example("UnsupportedProtocolVersionError")
    error = refused.get("error", refused)
    outcome = mu.discover_outcome({"jsonrpc": "2.0", "id": 1, "error": error})
    assert isinstance(outcome, dict) and outcome["supportedVersions"] == error["data"]["supported"]
    assert isinstance(mu.discover_outcome(jsonrpc.error_response(1, -32603, "boom")), str)
    assert isinstance(mu.discover_outcome({"jsonrpc": "2.0", "id": 1, "result": None}), str)


def test_prepare_wire_maps_the_progress_token() -> None:
    request = spec.example("CallToolRequest")
    request = {**request, "params": {**request["params"], "_meta": {**request["params"]["_meta"], "progressToken": "mine",
                                                                   "io.modelcontextprotocol/logLevel": "info"}}}
    prepared = mu.prepare_wire(request, 12)
    assert prepared.wire["id"] == 12 and prepared.wire["params"]["_meta"]["progressToken"] == "p12"
    assert prepared.progress_token == "mine" and prepared.wire_token == "p12" and prepared.wants_logs
    spec.modern("CallToolRequest", prepared.wire)
    assert request["params"]["_meta"]["progressToken"] == "mine"  # the caller's request is not touched
    plain = mu.prepare_wire(jsonrpc.request(1, "tools/list", {"_meta": {}}), 13)
    assert plain.wire_token is None and not plain.wants_logs


@pytest.mark.parametrize("msg,expected", [
    (jsonrpc.notification("notifications/progress", {"progressToken": "p1", "progress": 1}), ("deliver", 1)),
    (jsonrpc.notification("notifications/progress", {"progressToken": "p9", "progress": 1}), ("drop", None)),
    (jsonrpc.notification("notifications/tools/list_changed", {"_meta": {META_SUBSCRIPTION_ID: 2}}), ("deliver", 2)),
    (jsonrpc.notification("notifications/tools/list_changed", {"_meta": {META_SUBSCRIPTION_ID: 99}}), ("drop", None)),
    (jsonrpc.notification("notifications/cancelled", {"requestId": 2}), ("end-listen", 2)),
    (jsonrpc.notification("notifications/cancelled", {"requestId": 1}), ("drop", None)),
    (jsonrpc.notification("notifications/message", {"level": "info", "data": "x"}), ("deliver", 1)),
    (jsonrpc.notification("notifications/resources/list_changed"), ("drop", None)),
])
def test_route_notification(msg: dict[str, Any], expected: tuple[str, int | None]) -> None:
    pending = {1: Entry("tools/call", progress_token="theirs", wants_logs=True), 2: Entry("subscriptions/listen", wants_logs=True)}
    action, wire_id, out = mu.route_notification(msg, pending, {"p1": 1})
    assert (action, wire_id) == expected
    if msg["method"] == "notifications/progress" and action == "deliver":
        assert out is not None and out["params"]["progressToken"] == "theirs"
        spec.modern("ProgressNotification", out)


def test_logs_need_exactly_one_candidate() -> None:
    note = spec.example("LoggingMessageNotification")
    two = {1: Entry("tools/call", wants_logs=True), 2: Entry("prompts/get", wants_logs=True)}
    assert mu.route_notification(note, two, {})[0] == "drop"
    assert mu.route_notification(note, {1: Entry("tools/call")}, {})[0] == "drop"
    closed = mu.listen_closed(4)
    spec.modern("JSONRPCResultResponse", closed)

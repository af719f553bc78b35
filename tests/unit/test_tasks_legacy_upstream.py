"""Direction A tasks (2026 client, 2025 tasks server), pure: every frame validated against the era
that receives it (2025 schema toward the server, 2026 core + tasks extension schema toward the client)."""

from __future__ import annotations

import json

import pytest

from mcp_eras.bridge.translate import tasks as t
from mcp_eras.bridge.translate.jsonrpc import FrameError
from mcp_eras.bridge.translate.legacy_server import tasks as a

import spec

NOW = 1_764_000_000_000
UPSTREAM_CAPS = {"tools": {}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}


def call(declared: bool = True, **params) -> dict:
    caps = {"elicitation": {}}
    if declared:
        caps["extensions"] = {t.EXTENSION: {}}
    return {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"n": 1}, **params,
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": caps,
                  "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}, "progressToken": "p", "vendor.x/k": 1}}}


def legacy_task(status: str = "working", **kw) -> dict:
    return {"taskId": "up-1", "status": status, "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z",
            "ttl": 60000, "pollInterval": 250, **kw}


def new(request: dict | None = None) -> t.TaskRecord:
    created = {"task": legacy_task()}
    spec.legacy("CreateTaskResult", created)
    return a.new_record(created, bridge_id="bt-1", principal="alice", now_ms=NOW, request=request or call())


def test_advertise_only_when_upstream_supports_task_tool_calls():
    discover = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                "ttlMs": 0, "cacheScope": "public"}
    out = a.advertise(discover, UPSTREAM_CAPS)
    assert out["capabilities"]["extensions"] == {t.EXTENSION: {}}
    spec.modern("DiscoverResult", out)
    assert a.advertise(discover, {"tools": {}, "tasks": {"list": {}}}) is discover
    assert "extensions" not in discover["capabilities"]


@pytest.mark.parametrize("support, declared, upstream, expected", [
    ("required", True, True, "task"),
    ("required", False, True, "missing"),
    ("optional", True, True, "task"),
    ("optional", False, True, "direct"),
    ("forbidden", True, True, "direct"),
    ("optional", True, False, "direct"),
])
def test_creation_decision(support, declared, upstream, expected):
    assert a.creation(call(declared), support, upstream) == expected


def test_tool_task_support_defaults_to_forbidden():
    assert a.tool_task_support({"name": "x"}) == "forbidden"
    assert a.tool_task_support({"name": "x", "execution": {"taskSupport": "required"}}) == "required"
    assert a.tool_task_support({"name": "x", "execution": {"taskSupport": "bogus"}}) == "forbidden"


def test_create_request_is_a_2025_task_augmented_call():
    out = a.create_request(call(), 9, 30000)
    spec.legacy("CallToolRequest", out)
    assert out["params"]["task"] == {"ttl": 30000}
    assert out["params"]["_meta"] == {"vendor.x/k": 1}
    assert "protocolVersion" not in json.dumps(out)
    assert a.create_request(call(), 9, None)["params"]["task"] == {}


def test_creation_maps_nested_task_to_flat_2026():
    rec = new()
    out = a.create_result(rec)
    spec.ext_tasks("CreateTaskResult", out)
    assert out["resultType"] == "task" and out["taskId"] == "bt-1" and out["ttlMs"] == 60000 and out["pollIntervalMs"] == 250
    assert rec.upstream_id == "up-1" and rec.principal == "alice"
    assert rec.client_capabilities["extensions"] == {t.EXTENSION: {}}


@pytest.mark.parametrize("bad", [{}, {"task": {}}, {"task": {"taskId": "x", "status": "done"}}, {"content": []}])
def test_malformed_create_result_is_internal_error(bad):
    with pytest.raises(FrameError) as info:
        a.new_record(bad, bridge_id="b", principal=None, now_ms=NOW, request=call())
    assert info.value.code == -32603


def test_working_poll():
    rec = new()
    assert a.merge(rec, legacy_task(statusMessage="half way"), NOW + 10)
    out = a.get_result(rec)
    spec.ext_tasks("GetTaskResult", out)
    assert out["status"] == "working" and out["statusMessage"] == "half way"


def test_upstream_terminal_without_payload_still_reads_working():
    rec = new()
    a.merge(rec, legacy_task("completed"), NOW + 10)
    assert a.get_result(rec)["status"] == "working"
    assert a.upstream_terminal(legacy_task("completed"))


def test_completed_result_is_inlined_without_related_task_meta():
    rec = new()
    payload = {"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text": "done"}], "isError": False,
                                                     "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "up-1"}}}}
    spec.legacy("GetTaskPayloadResult", payload["result"])
    a.settle(rec, payload, NOW + 20)
    out = a.get_result(rec)
    spec.ext_tasks("GetTaskResult", out)
    spec.modern("CallToolResult", {**out["result"], "resultType": "complete"})
    assert out["status"] == "completed" and out["result"] == {"content": [{"type": "text", "text": "done"}], "isError": False}


def test_tool_error_is_completed_in_2026_although_failed_in_2025():
    rec = new()
    a.merge(rec, legacy_task("failed"), NOW + 1)
    a.settle(rec, {"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text": "boom"}], "isError": True}}, NOW + 2)
    out = a.get_result(rec)
    spec.ext_tasks("GetTaskResult", out)
    assert out["status"] == "completed" and out["result"]["isError"] is True


def test_jsonrpc_error_is_failed_with_error():
    rec = new()
    a.settle(rec, {"jsonrpc": "2.0", "id": 4, "error": {"code": -32603, "message": "rate limited", "data": {"x": 1}}}, NOW + 2)
    out = a.get_result(rec)
    spec.ext_tasks("GetTaskResult", out)
    assert out["status"] == "failed" and out["error"] == {"code": -32603, "message": "rate limited", "data": {"x": 1}}


def test_result_without_content_is_failed():
    rec = new()
    a.merge(rec, legacy_task("failed", statusMessage="crashed"), NOW + 1)
    a.settle(rec, {"jsonrpc": "2.0", "id": 4, "result": {"_meta": {}}}, NOW + 2)
    out = a.get_result(rec)
    spec.ext_tasks("GetTaskResult", out)
    assert out["status"] == "failed" and out["error"]["message"] == "crashed"


def test_cancel_is_an_empty_ack_and_the_task_stays_cancelled():
    rec = new()
    legacy_cancel_result = legacy_task("cancelled")
    spec.legacy("CancelTaskResult", legacy_cancel_result)
    a.merge(rec, legacy_cancel_result, NOW + 1)
    spec.ext_tasks("CancelTaskResult", a.ack())
    a.settle(rec, {"jsonrpc": "2.0", "id": 5, "result": {"content": [], "isError": False}}, NOW + 2)
    out = a.get_result(rec)
    spec.ext_tasks("GetTaskResult", out)
    assert out["status"] == "cancelled"


def test_input_request_round_trip():
    rec = new()
    server_request = {"jsonrpc": "2.0", "id": 17, "method": "elicitation/create", "params": {
        "mode": "form", "message": "Proceed?", "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "up-1"}}}}
    spec.legacy("ElicitRequest", server_request)
    key = a.add_input(rec, server_request, NOW + 1)
    out = a.get_result(rec)
    spec.ext_tasks("GetTaskResult", out)
    assert out["status"] == "input_required"
    assert out["inputRequests"][key]["params"].get("_meta") is None
    update = {"jsonrpc": "2.0", "id": 8, "method": "tasks/update",
              "params": {"taskId": "bt-1", "inputResponses": {key: {"action": "accept", "content": {"ok": True}}},
                         "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}
    spec.ext_tasks("UpdateTaskRequest", update)
    replies = a.answers(rec, {**update["params"]["inputResponses"], "never-issued": {"action": "decline"}}, NOW + 2)
    assert replies == [{"jsonrpc": "2.0", "id": 17, "result": {"action": "accept", "content": {"ok": True}}}]
    spec.legacy("JSONRPCResultResponse", replies[0])
    spec.legacy("ElicitResult", replies[0]["result"])
    assert a.get_result(rec)["status"] == "working"
    assert a.answers(rec, {key: {"action": "decline"}}, NOW + 3) == [], "an answered key is ignored"


def test_partial_answers_keep_input_required():
    rec = new()
    k1 = a.add_input(rec, {"jsonrpc": "2.0", "id": 1, "method": "roots/list", "params": {}}, NOW)
    k2 = a.add_input(rec, {"jsonrpc": "2.0", "id": 2, "method": "roots/list", "params": {}}, NOW)
    assert k1 != k2
    a.answers(rec, {k1: {"roots": []}}, NOW + 1)
    out = a.get_result(rec)
    assert out["status"] == "input_required" and list(out["inputRequests"]) == [k2]
    with pytest.raises(FrameError):
        a.answers(rec, ["not", "an", "object"], NOW)


def test_refusals_answer_every_pending_input():
    rec = new()
    a.add_input(rec, {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {"message": "m", "requestedSchema": {}}}, NOW)
    a.add_input(rec, {"jsonrpc": "2.0", "id": 2, "method": "sampling/createMessage", "params": {}}, NOW)
    out = a.refusals(rec)
    assert out[0]["result"] == {"action": "cancel"} and out[1]["error"]["code"] == -32603
    spec.legacy("JSONRPCErrorResponse", out[1])
    assert rec.pending_inputs() == {}


def test_status_notification_is_tagged_for_the_listen_stream():
    rec = new()
    note = a.status_notification(rec, listen_id=12)
    spec.ext_tasks("TaskStatusNotification", note)
    assert note["params"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": 12}


def test_listen_split_and_acknowledgement():
    ids, rest = a.split_listen({"notifications": {"taskIds": ["bt-1", 3], "toolsListChanged": True}, "_meta": {}})
    assert ids == ["bt-1"] and rest["notifications"] == {"toolsListChanged": True}
    ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": {"notifications": {}}}
    out = a.acknowledged(ack, ["bt-1"])
    spec.modern("SubscriptionsAcknowledgedNotification", out)
    assert out["params"]["notifications"]["taskIds"] == ["bt-1"]
    other = {"jsonrpc": "2.0", "method": "notifications/message", "params": {}}
    assert a.acknowledged(other, ["x"]) is other

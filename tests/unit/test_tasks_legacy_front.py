"""Direction B tasks (2025 client, 2026 tasks-extension server), pure: frames toward the 2025 client
validate against the 2025 schema, frames toward the 2026 server against the core + extension schema."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate import tasks as t
from mcp_eras.bridge.translate.jsonrpc import FrameError
from mcp_eras.bridge.translate.legacy_client import tasks as b

import spec

NOW = 1_764_000_000_000
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}}


def canonical_call() -> dict:
    return {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "slow", "arguments": {}, "_meta": {**META, b.TASK_REQUEST_META: {"ttl": 5000}}}}


def modern_task(status: str = "working", **kw) -> dict:
    return {"taskId": "srv-1", "status": status, "createdAt": "2026-07-28T00:00:00Z", "lastUpdatedAt": "2026-07-28T00:00:00Z",
            "ttlMs": 60000, "pollIntervalMs": 200, **kw}


def new() -> t.TaskRecord:
    created = {"resultType": "task", **modern_task()}
    spec.ext_tasks("CreateTaskResult", created)
    return b.new_record(created, bridge_id="bt-9", principal="p", session="s1", now_ms=NOW, requested_ttl=5000)


def test_capabilities_only_when_the_server_declares_the_extension():
    init = {"tools": {}}
    caps = b.legacy_capabilities(init, {"extensions": {t.EXTENSION: {}}})
    spec.legacy("ServerCapabilities", caps)
    assert caps["tasks"]["requests"] == {"tools": {"call": {}}}
    assert b.legacy_capabilities(init, {"tools": {}}) is init


def test_tools_become_optionally_task_capable():
    forbidden = {"name": "b", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "forbidden"}}
    out = b.tools_with_task_support({"tools": [{"name": "a", "inputSchema": {"type": "object"}}, forbidden]})
    spec.legacy("ListToolsResult", out)
    assert [x["execution"]["taskSupport"] for x in out["tools"]] == ["optional", "forbidden"]


def test_the_task_ask_becomes_the_extension_declaration():
    req = canonical_call()
    assert b.task_request(req) == {"ttl": 5000}
    out = b.modern_call(req)
    spec.modern("CallToolRequest", out)
    meta = out["params"]["_meta"]
    assert b.TASK_REQUEST_META not in meta
    assert meta["io.modelcontextprotocol/clientCapabilities"] == {"elicitation": {}, "extensions": {t.EXTENSION: {}}}
    assert b.TASK_REQUEST_META not in b.without_task_request(req)["params"]["_meta"]


def test_creation_is_the_nested_2025_task():
    rec = new()
    out = b.create_result(rec)
    spec.legacy("CreateTaskResult", out)
    assert out["task"]["taskId"] == "bt-9" and out["task"]["ttl"] == 60000 and out["task"]["pollInterval"] == 200
    assert rec.upstream_id == "srv-1"


def test_a_direct_answer_is_a_task_the_bridge_completed():
    rec = b.new_record({"resultType": "complete", "content": [{"type": "text", "text": "now"}]}, bridge_id="bt-2",
                       principal=None, session="s", now_ms=NOW, requested_ttl=None)
    spec.legacy("CreateTaskResult", b.create_result(rec))
    kind, body = b.result_step(rec)
    assert kind == "done" and body["result"]["content"][0]["text"] == "now"
    assert body["result"]["_meta"] == {"io.modelcontextprotocol/related-task": {"taskId": "bt-2"}}
    spec.legacy("CallToolResult", body["result"])


def test_get_maps_status_and_tool_error_is_failed_for_2025():
    rec = new()
    b.merge(rec, modern_task("completed", result={"content": [{"type": "text", "text": "x"}], "isError": True}), NOW + 1)
    task = b.legacy_task(rec)
    spec.legacy("GetTaskResult", task)
    assert task["status"] == "failed"
    kind, body = b.result_step(rec)
    assert kind == "done" and body["result"]["isError"] is True
    spec.legacy("CallToolResult", body["result"])


def test_failed_with_error_is_a_jsonrpc_error_from_tasks_result():
    rec = new()
    b.merge(rec, modern_task("failed", error={"code": -32603, "message": "boom"}), NOW + 1)
    kind, body = b.result_step(rec)
    assert kind == "done" and body == {"error": {"code": -32603, "message": "boom"}}
    spec.legacy("JSONRPCErrorResponse", {"jsonrpc": "2.0", "id": 1, **body})
    assert b.legacy_task(rec)["statusMessage"] == "boom"


def test_result_step_waits_then_asks_once_per_key():
    rec = new()
    assert b.result_step(rec) == ("wait", 200)
    detailed = modern_task("input_required", inputRequests={"confirm": {"method": "elicitation/create", "params": {
        "mode": "form", "message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}}})
    spec.ext_tasks("GetTaskResult", {"resultType": "complete", **detailed})
    b.merge(rec, detailed, NOW + 1)
    kind, entries = b.result_step(rec)
    assert kind == "ask" and [e.key for e in entries] == ["confirm"]
    request = b.input_request(rec, entries[0], "bridge-7")
    spec.legacy("ElicitRequest", request)
    assert request["params"]["_meta"] == {"io.modelcontextprotocol/related-task": {"taskId": "bt-9"}}
    b.merge(rec, detailed, NOW + 2)
    assert b.result_step(rec) == ("wait", 200), "an input already sent is not asked again"
    value = b.input_response(entries[0], {"jsonrpc": "2.0", "id": "bridge-7", "result": {"action": "accept", "content": {}}})
    update = {"jsonrpc": "2.0", "id": 9, "method": "tasks/update",
              "params": {**b.update_params(rec, {"confirm": value}), "_meta": META}}
    spec.ext_tasks("UpdateTaskRequest", update)
    assert update["params"]["taskId"] == "srv-1"


def test_input_errors():
    entry = t.InputEntry("k", "elicitation/create", {})
    refused = {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "no"}}
    assert b.input_response(entry, refused) == {"action": "cancel"}
    with pytest.raises(FrameError):
        b.input_response(t.InputEntry("k", "sampling/createMessage", {}), refused)


def test_cancel():
    rec = new()
    out = b.cancelled(rec, NOW + 1)
    spec.legacy("CancelTaskResult", out)
    assert out["status"] == "cancelled"
    b.merge(rec, modern_task("completed", result={"content": []}), NOW + 2)
    assert rec.status == "cancelled", "cancelled is terminal"
    with pytest.raises(FrameError) as info:
        b.check_cancellable(rec)
    assert info.value.code == -32602
    kind, body = b.result_step(rec)
    assert kind == "done" and "error" in body


def test_list_paginates_with_an_opaque_cursor():
    records = [b.new_record({"resultType": "task", **modern_task(taskId=f"s{i}")}, bridge_id=f"b{i}", principal=None,
                            session="s", now_ms=NOW + i, requested_ttl=None) for i in range(b.LIST_PAGE + 3)]
    first = b.list_result(records, None)
    spec.legacy("ListTasksResult", first)
    assert len(first["tasks"]) == b.LIST_PAGE and "nextCursor" in first
    second = b.list_result(records, first["nextCursor"])
    assert [x["taskId"] for x in second["tasks"]] == [f"b{i}" for i in range(b.LIST_PAGE, b.LIST_PAGE + 3)]
    assert "nextCursor" not in second
    for bad in ("!!", "OTk5OQ=="):
        with pytest.raises(FrameError):
            b.list_result(records, bad)


def test_status_notification():
    rec = new()
    note = b.status_notification(rec)
    spec.legacy("TaskStatusNotification", note)
    assert "_meta" not in note["params"]


def test_malformed_results():
    with pytest.raises(FrameError):
        b.new_record("x", bridge_id="b", principal=None, session=None, now_ms=NOW, requested_ttl=None)
    with pytest.raises(FrameError):
        b.new_record({"resultType": "task"}, bridge_id="b", principal=None, session=None, now_ms=NOW, requested_ttl=None)


def test_upstream_request_declares_the_extension_and_drops_the_marker():
    out = b.upstream_request(canonical_call(), "tasks/get", {"taskId": "srv-1"})
    spec.ext_tasks("GetTaskRequest", out)
    spec.modern("RequestParams", out["params"])
    assert out["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"] == {t.EXTENSION: {}}
    assert b.TASK_REQUEST_META not in out["params"]["_meta"]


def test_input_round_feeds_the_legacy_front_mrtr_loop_once_per_key():
    rec = new()
    b.merge(rec, modern_task("input_required", inputRequests={"k1": {"method": "elicitation/create", "params": {
        "mode": "form", "message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}}}), NOW + 1)
    kind, entries = b.result_step(rec)
    round_ = b.input_round(rec, entries)
    spec.modern("InputRequiredResult", round_)
    assert round_["requestState"] == "bt-9"
    assert round_["inputRequests"]["k1"]["params"]["_meta"] == {"io.modelcontextprotocol/related-task": {"taskId": "bt-9"}}
    assert b.result_step(rec) == ("wait", 200)
    answers = b.take_answers(rec, {"k1": {"action": "accept", "content": {}}, "unknown": {"action": "decline"}})
    assert answers == {"k1": {"action": "accept", "content": {}}}
    assert b.take_answers(rec, {"k1": {"action": "decline"}}) == {}, "answered once"
    spec.ext_tasks("UpdateTaskRequest", {"jsonrpc": "2.0", "id": 1, "method": "tasks/update",
                                         "params": {**b.update_params(rec, answers), "_meta": META}})

"""The tasks layers' decisions as pure code: direction A's routing, task session and record updates
(``translate/legacy_server/task_routing``), direction B's (``translate/legacy_client/tasks``) and the task session
caps' inputs (``translate/task_limits``). Frames sent to a 2025 server are validated against the 2025-11-25 schema."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate import task_limits as tl
from mcp_eras.bridge.translate import tasks as t
from mcp_eras.bridge.translate.jsonrpc import FrameError
from mcp_eras.bridge.translate.legacy_client import tasks as b
from mcp_eras.bridge.translate.legacy_server import task_routing as r

import spec

NOW = 1_764_000_000_000
CAPS = {"elicitation": {"form": {}}, "sampling": {"tools": {}}, "roots": {"listChanged": True}, "extensions": {t.EXTENSION: {}}}


def request(method: str, declared: bool = True, **params: object) -> dict:
    caps = dict(CAPS) if declared else {"elicitation": {}}
    return {"jsonrpc": "2.0", "id": 5, "method": method,
            "params": {**params, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                           "io.modelcontextprotocol/clientCapabilities": caps}}}


def record(status: str = "working", upstream_id: str = "up-1") -> t.TaskRecord:
    rec = t.TaskRecord(bridge_id="bt-1", upstream_id=upstream_id, principal="alice", client_era="2026-07-28",
                       upstream_era="2025-11-25", status=status, created_ms=NOW, updated_ms=NOW)
    rec.session = "s"
    return rec


def legacy_task(status: str = "working", **kw: object) -> dict:
    task = {"taskId": "up-1", "status": status, "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000, "pollInterval": 250, **kw}
    spec.legacy("Task", task)
    return task


ELICIT = {"jsonrpc": "2.0", "id": 9, "method": "elicitation/create",
          "params": {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object", "properties": {}},
                     "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "up-1"}}}}


# --- direction A: which requests, and where they go ------------------------------------------------------------


def test_the_layer_touches_only_the_extension_and_the_methods_it_changes() -> None:
    for method in ("server/discover", "tools/call", "subscriptions/listen", "tasks/get", "tasks/update", "tasks/cancel"):
        assert r.touches_extension(method)
    for method in ("tools/list", "resources/read", "tasks/result", "tasks/list", None):
        assert not r.touches_extension(method)


def test_a_listen_is_the_layers_only_with_task_ids() -> None:
    assert r.listens_for_tasks(request("subscriptions/listen", notifications={"taskIds": ["bt-1"], "toolsListChanged": True}))
    assert r.listens_for_tasks(request("subscriptions/listen", notifications={"taskIds": []}))
    assert not r.listens_for_tasks(request("subscriptions/listen", notifications={"toolsListChanged": True}))
    assert not r.listens_for_tasks(request("subscriptions/listen"))


@pytest.mark.parametrize(("method", "supported", "task_session", "route"), [
    ("tasks/get", False, False, "not_found"),
    ("tasks/update", True, False, "task"),
    ("tasks/cancel", True, True, "task"),
    ("subscriptions/listen", False, False, "listen_plain"),
    ("subscriptions/listen", True, False, "listen"),
    ("tools/call", True, True, "create"),
    ("tools/call", True, False, "inner"),
    ("tools/call", False, True, "inner"),
])
def test_dispatch(method: str, supported: bool, task_session: bool, route: str) -> None:
    assert r.dispatch(request(method), supported, task_session) == route


@pytest.mark.parametrize("method", ["tasks/get", "subscriptions/listen"])
def test_an_undeclared_extension_is_refused_only_where_the_server_has_tasks(method: str) -> None:
    """ext §Capability Negotiation: a request of the extension's must declare it."""
    with pytest.raises(FrameError) as refused:
        r.dispatch(request(method, declared=False), True, True)
    assert refused.value.code == t.missing_extension().code
    assert r.dispatch(request(method, declared=False), False, False) in ("not_found", "listen_plain")
    assert r.dispatch(request("tools/call", declared=False), True, True) == "create"  # tasks.creation decides


def test_method_not_found() -> None:
    answer = r.method_not_found(request("tasks/get"))
    assert answer["error"] == {"code": -32601, "message": "Method not found: tasks/get"}


def test_a_task_session_declares_only_the_input_kinds_its_client_answers() -> None:
    assert r.input_capabilities(request("tools/call")) == {"elicitation": {"form": {}}, "sampling": {"tools": {}}, "roots": {}}
    assert r.input_capabilities(request("tools/call", declared=False)) == {"elicitation": {}}
    assert r.input_capabilities({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}) == {}
    params = r.session_initialize(r.input_capabilities(request("tools/call")), {"name": "mcp-bridge", "version": "1"})
    spec.legacy("InitializeRequest", jsonrpc.request(1, "initialize", params))
    assert params["protocolVersion"] == "2025-11-25"


# --- direction A: the task session -----------------------------------------------------------------------------


def test_what_a_task_session_does_with_its_servers_messages() -> None:
    assert r.inbound({"jsonrpc": "2.0", "id": 3, "result": {}}) == "response"
    assert r.inbound({"jsonrpc": "2.0", "id": 3, "error": {"code": -1, "message": "x"}}) == "response"
    assert r.inbound({"jsonrpc": "2.0", "id": "s1", "method": "ping"}) == "ping"
    assert r.inbound(ELICIT) == "input"
    assert r.inbound({"jsonrpc": "2.0", "id": 4, "method": "roots/list"}) == "input"
    assert r.inbound({"jsonrpc": "2.0", "id": 4, "method": "tasks/list"}) == "unknown"
    status = {"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": legacy_task()}
    spec.legacy("TaskStatusNotification", status)
    assert r.inbound(status) == "status"
    assert r.inbound({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}) == "tools_changed"
    assert r.inbound({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": 1}}) == "ignore"
    assert r.own_request_id({"id": 3}) == 3
    assert r.own_request_id({"id": "3"}) is None


def test_the_session_gives_up_on_a_request_with_a_cancellation() -> None:
    spec.legacy("CancelledNotification", r.cancel_notice(7))
    assert r.no_answer(7, "tasks/get")["error"]["message"] == "Upstream did not answer tasks/get in time"
    lost = r.session_lost(7, "child exited")
    spec.legacy("JSONRPCErrorResponse", lost)
    assert lost["error"] == {"code": -32603, "message": "Upstream failed: child exited", "data": {"lost": True}}


def test_a_tools_page_gives_each_tools_task_support_and_the_next_cursor() -> None:
    page = {"tools": [{"name": "slow", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
                      {"name": "fast", "inputSchema": {"type": "object"}}, {"title": "nameless"}],
            "nextCursor": "c2"}
    spec.legacy("ListToolsResult", {k: v for k, v in page.items() if k != "tools"} | {"tools": page["tools"][:2]})
    assert r.tools_page({"jsonrpc": "2.0", "id": 1, "result": page}) == ({"slow": "required", "fast": "forbidden"}, "c2")
    assert r.tools_page({"jsonrpc": "2.0", "id": 1, "result": {"tools": [], "nextCursor": 3}}) == ({}, None)
    assert r.tools_page({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "x"}}) == ({}, None)


# --- direction A: a task's server requests and the upstream's answers --------------------------------------


def test_a_server_request_no_task_takes_is_refused() -> None:
    """An elicitation is declined with ``cancel``; another input request gets an error (never left waiting)."""
    assert r.stray_refusals(ELICIT) == [{"jsonrpc": "2.0", "id": 9, "result": {"action": "cancel"}}]
    refused = r.stray_refusals({"jsonrpc": "2.0", "id": 4, "method": "roots/list"})
    assert refused[0]["id"] == 4 and refused[0]["error"]["code"] == -32603
    assert r.take_input(None, ELICIT, NOW) == r.stray_refusals(ELICIT)
    assert r.take_input(record("completed"), ELICIT, NOW) == r.stray_refusals(ELICIT)


def test_a_live_task_keeps_its_server_request_for_the_client() -> None:
    rec = record()
    assert r.take_input(rec, ELICIT, NOW) == []
    assert rec.status == "input_required" and [e.peer_id for e in rec.inputs.values()] == [9]


def test_a_server_request_without_the_related_task_goes_to_the_one_task_it_can_belong_to() -> None:
    one, two = record(), record()
    assert r.sole_live_task([one]) is one
    assert r.sole_live_task([]) is None
    assert r.sole_live_task([one, two]) is None
    two.status = "input_required"
    assert r.sole_live_task([one, two]) is two


def test_a_broken_stream_is_asked_again_while_the_session_is_up() -> None:
    broke = jsonrpc.error_response(1, -32603, "Upstream closed the response stream before answering")
    assert r.stream_broke(broke, session_ready=True)
    assert not r.stream_broke(broke, session_ready=False)
    assert not r.stream_broke(jsonrpc.error_response(1, -32603, "Tool failed"), session_ready=True)
    assert not r.stream_broke(jsonrpc.result_response(1, {"content": []}), session_ready=True)


def test_a_result_without_payload_needs_the_tasks_status() -> None:
    assert r.needs_status(jsonrpc.result_response(1, {"_meta": {}}))
    assert not r.needs_status(jsonrpc.result_response(1, {"content": []}))
    assert not r.needs_status(jsonrpc.error_response(1, -32603, "x"))


def test_finish_settles_or_loses_the_task() -> None:
    done = record()
    r.finish(done, jsonrpc.result_response(1, {"content": [{"type": "text", "text": "ok"}]}), None, True, NOW + 1)
    assert done.status == "completed" and done.result == {"content": [{"type": "text", "text": "ok"}]}
    forgotten = record()
    r.finish(forgotten, jsonrpc.error_response(1, -32602, "Unknown task"), None, True, NOW + 1)
    assert forgotten.status == "failed" and forgotten.error is not None
    assert forgotten.error["message"] == "Upstream task lost: the upstream no longer knows the task"
    ended = record()
    r.finish(ended, jsonrpc.error_response(1, -32603, "Upstream failed: child exited"), None, False, NOW + 1)
    assert ended.error is not None and ended.error["message"] == "Upstream task lost: Upstream failed: child exited"
    failed = record()
    r.finish(failed, jsonrpc.result_response(1, {"_meta": {}}), legacy_task("failed", statusMessage="boom"), True, NOW + 1)
    assert failed.status == "failed" and failed.error == {"code": -32603, "message": "boom"}
    assert r.pump_ended(True) == "no result in time" and r.pump_ended(False) == "the upstream session ended"


def test_a_poll_settles_with_the_payload_of_a_terminal_task() -> None:
    rec = record()
    assert r.polled(rec, legacy_task("working", statusMessage="half"), None, NOW + 1) == (True, False)
    assert r.polled(rec, legacy_task("working", statusMessage="half"), None, NOW + 2) == (False, False)
    assert r.polled(rec, legacy_task("completed"), jsonrpc.result_response(1, {"content": []}), NOW + 3) == (True, True)
    assert rec.status == "completed"
    assert r.polled(rec, legacy_task("completed"), jsonrpc.result_response(1, {"content": []}), NOW + 4) == (False, False)


def test_a_cancelled_task_refuses_its_outstanding_inputs() -> None:
    rec = record()
    r.take_input(rec, ELICIT, NOW)
    assert r.cancelled(rec, None, NOW + 1) is None and rec.status == "input_required"
    cancelled = legacy_task("cancelled")
    assert r.cancelled(rec, cancelled, NOW + 1) == [{"jsonrpc": "2.0", "id": 9, "result": {"action": "cancel"}}]
    assert rec.status == "cancelled"
    assert r.cancelled(record(), legacy_task("working"), NOW + 1) == []


# --- direction B: the 2025 clients' task layer -----------------------------------------------------------------


def test_which_requests_of_a_2025_client_the_layer_takes() -> None:
    asked = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "x", "_meta": {b.TASK_REQUEST_META: {"ttl": 1000}}}}
    assert b.served_here(asked, "2025-11-25")
    assert not b.served_here(asked, "2026-07-28")
    assert not b.served_here({**asked, "params": {"name": "x"}}, "2025-11-25")
    for method in ("tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tools/list"):
        assert b.served_here({"jsonrpc": "2.0", "id": 1, "method": method}, "2025-11-25")
    assert not b.served_here({"jsonrpc": "2.0", "id": 1, "method": "tasks/update"}, "2025-11-25")


@pytest.mark.parametrize(("method", "supported", "route"), [
    ("tools/list", False, "tools"), ("tools/call", True, "create"), ("tools/call", False, "plain"),
    ("tasks/get", False, "not_found"), ("tasks/list", True, "list"), ("tasks/get", True, "get"),
    ("tasks/cancel", True, "cancel"), ("tasks/result", True, "result"),
])
def test_direction_b_routes(method: str, supported: bool, route: str) -> None:
    assert b.route(method, supported) == route


def test_direction_b_creation_and_polls() -> None:
    assert b.requested_ttl({"ttl": 5000}) == 5000
    assert b.requested_ttl({"ttl": "5000"}) is None and b.requested_ttl({}) is None
    assert b.creates_task({"resultType": "task", "taskId": "s"})
    assert b.creates_task({"resultType": "complete", "content": []})
    assert not b.creates_task({"resultType": "input_required", "inputRequests": {}})
    assert not b.creates_task(None)
    rec = record()
    assert b.refreshed(rec, {"jsonrpc": "2.0", "id": 1, "result": {"taskId": "up-1", "status": "working",
                                                                    "statusMessage": "busy"}}, NOW + 1)
    assert not b.refreshed(rec, {"jsonrpc": "2.0", "id": 1, "result": {"taskId": "up-1", "status": "working",
                                                                        "statusMessage": "busy"}}, NOW + 2)
    assert b.refreshed(rec, jsonrpc.error_response(1, -32602, "Unknown task"), NOW + 3)
    assert rec.status == "failed"
    other = record()
    assert not b.refreshed(other, jsonrpc.error_response(1, -32603, "down"), NOW + 1) and other.status == "working"


def test_direction_b_waits_and_gives_up() -> None:
    assert b.poll_wait_s(200, 10.0) == 0.2
    assert b.poll_wait_s(60_000, 10.0) == b.MAX_POLL_S
    assert b.poll_wait_s(1000, 0.3) == 0.3
    timeout = b.result_timeout(record())
    assert timeout.code == -32603 and timeout.data == {"taskId": "bt-1", "status": "working"}
    refused = b.input_refused(5, {"code": -32602, "message": "no such input"})
    assert refused["error"] == {"code": -32603, "message": "Upstream refused the task's input",
                                "data": {"code": -32602, "message": "no such input"}}


# --- the task session caps' inputs ------------------------------------------------------------------------


def test_a_session_is_busy_while_a_task_of_its_own_runs_or_a_request_is_in_flight() -> None:
    finished, elsewhere = record("completed"), record()
    elsewhere.session = "other"
    idle = tl.session_info(("alice", "s"), "alice", False, [finished, elsewhere], "s", 0, NOW)
    assert idle == tl.SessionInfo(("alice", "s"), "alice", busy=False, last_used_ms=NOW)
    assert tl.session_info(("alice", "s"), "alice", False, [record()], "s", 0, NOW).busy
    assert tl.session_info(("alice", "s"), "alice", False, [], "s", 1, NOW).busy
    assert tl.session_info(("alice", "s"), "alice", True, [record()], "s", 3, NOW) == tl.SessionInfo(
        ("alice", "s"), "alice", busy=False, last_used_ms=0)


def test_the_caps_from_the_settings_and_the_reapers_period() -> None:
    limits = tl.limits_for(16, 1000, 32, 4, 300.0)
    assert limits == tl.TaskLimits(per_principal=16, records_per_principal=64, total=1000, sessions=32,
                                   sessions_per_principal=4, idle_ms=300_000)
    assert tl.reap_period_s(limits) == 60.0
    assert tl.reap_period_s(tl.limits_for(1, 1, 1, 1, 60.0)) == 15.0
    assert tl.reap_period_s(tl.limits_for(1, 1, 1, 1, 1.0)) == 1.0


def test_one_task_session_per_principal_and_input_capabilities() -> None:
    caps = r.input_capabilities(request("tools/call"))
    assert r.session_key("alice", caps) == r.session_key("alice", dict(caps))
    assert r.session_key("alice", caps) != r.session_key("bob", caps)
    assert r.session_key("alice", caps) != r.session_key("alice", {"elicitation": {}})
    assert r.session_key(None, {}) == (None, "{}")
    assert r.session_over("lost") and r.session_over("closed")
    assert not r.session_over("ready") and not r.session_over("new") and not r.session_over("opening")


def test_discover_advertises_the_extension_and_gives_a_2025_client_its_task_capabilities() -> None:
    """ext §Capability Negotiation (the 2026 side) and 2025 §Server Capabilities (the 2025 side)."""
    discover = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                "serverInfo": {"name": "s", "version": "1"}, "ttlMs": 0, "cacheScope": "public"}
    with_tasks = {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}}
    modern = r.discovered(discover, with_tasks, "2026-07-28")
    assert modern["capabilities"]["extensions"] == {t.EXTENSION: {}}
    spec.modern("DiscoverResult", modern)
    assert r.discovered(discover, {"tools": {}}, "2026-07-28") is discover
    assert r.discovered(discover, None, "2026-07-28") is discover
    legacy = r.discovered(discover, with_tasks, "2025-11-25")
    assert legacy["capabilities"]["tasks"] == b.LEGACY_TASKS_CAPABILITY
    assert "tasks" not in r.discovered(discover, {"tools": {}}, "2025-11-25")["capabilities"]


def test_a_2025_client_lists_only_the_2025_clients_tasks() -> None:
    mine, theirs = record(), record()
    mine.client_era, mine.bridge_id = "2025-11-25", "bt-2"
    listed = b.list_answer(3, [theirs, mine], None)
    assert [task["taskId"] for task in listed["result"]["tasks"]] == ["bt-2"]
    assert listed["result"]["resultType"] == "complete"
    assert b.answer(3, {"task": {}}) == {"jsonrpc": "2.0", "id": 3, "result": {"task": {}, "resultType": "complete"}}

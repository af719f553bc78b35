"""Direction A tasks, pure: a 2026-07-28 client using the tasks extension, a 2025-11-25 tasks server.

Rules (left: what the 2026 client sees, ext = ``experimental-ext-tasks`` draft ``tasks.mdx``;
right: what the 2025 server speaks, ``2025-11-25 basic/utilities/tasks.mdx``):

=====================  ==========================================  ==========================================
rule                   2026 client (ext)                           2025 server
=====================  ==========================================  ==========================================
advertise              discover ``capabilities.extensions``        ``initialize`` ``capabilities.tasks.requests
                       [tasks] (ext §Capability Negotiation)       .tools.call`` (§Server Capabilities)
opt-in                 extension in the request's                  ``params.task`` {ttl} per call, only for
                       ``clientCapabilities``; server decides      tools whose ``execution.taskSupport`` is
                       (ext §Capability Negotiation)               optional/required (§Tool-Level Negotiation)
required, undeclared   -32021 requiredCapabilities.extensions      (never sent)
creation               flat ``resultType: "task"``, ``ttlMs``,     ``{task: {taskId, status, ttl,
                       ``pollIntervalMs`` (ext §Task Creation)     pollInterval, ...}}`` (§Creating Tasks)
poll                   ``tasks/get`` -> DetailedTask, result or    ``tasks/get`` -> Task; result only through
                       error inline (ext §Task Polling)            ``tasks/result`` (§Retrieving Task Results)
tool error             ``completed`` + result{isError:true}        ``failed`` (§Task Status) -- the bridge
                       (ext §Task Execution Errors)                reports completed when a result exists
input mid-task         ``input_required`` + ``inputRequests``,     elicitation/sampling/roots requests with
                       answered by ``tasks/update``                related-task ``_meta``, delivered on the
                       (ext §Task Update Requests)                 ``tasks/result`` stream (§Input Required)
cancel                 ``tasks/cancel`` -> empty ack (ext §Task    ``tasks/cancel`` -> Task ``cancelled``;
                       Cancellation)                               terminal -> -32602 (§Task Cancellation)
status notification    ``notifications/tasks`` (DetailedTask) on   ``notifications/tasks/status`` (Task),
                       ``subscriptions/listen`` with ``taskIds``   unsolicited (§Task Status Notification)
                       (ext §Task Status Notifications)
=====================  ==========================================  ==========================================

The record's ``upstream_id`` is the 2025 task id; the client only ever sees ``bridge_id``.
"""

from __future__ import annotations

import copy
from typing import Any

from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, FrameError, Message
from mcp_eras.bridge.translate.tasks import (
    EXTENSION,
    InputEntry,
    TaskRecord,
    advertises_extension,
    apply_timing,
    declares_extension,
    iso,
    new_input_key,
    strip_related_task,
    with_extension,
)

TOOL_SUPPORT = ("forbidden", "optional", "required")


def upstream_supports_tasks(server_caps: Any) -> bool:
    """2025 §Capabilities: ``tasks.requests.tools.call`` present means task-augmented tools/call."""
    tasks = server_caps.get("tasks") if isinstance(server_caps, dict) else None
    requests = tasks.get("requests") if isinstance(tasks, dict) else None
    tools = requests.get("tools") if isinstance(requests, dict) else None
    return isinstance(tools, dict) and isinstance(tools.get("call"), dict)


def upstream_cancels(server_caps: Any) -> bool:
    tasks = server_caps.get("tasks") if isinstance(server_caps, dict) else None
    return isinstance(tasks, dict) and isinstance(tasks.get("cancel"), dict)


def advertise(discover_result: Message, server_caps: Any) -> Message:
    """A DiscoverResult that declares the extension exactly when the 2025 server supports task tools/call."""
    if not upstream_supports_tasks(server_caps) or advertises_extension(discover_result.get("capabilities")):
        return discover_result
    out = dict(discover_result)
    out["capabilities"] = with_extension(discover_result.get("capabilities"))
    return out


def tool_task_support(tool: Any) -> str:
    """``execution.taskSupport`` of a 2025 Tool; absent means forbidden (§Tool-Level Negotiation)."""
    execution = tool.get("execution") if isinstance(tool, dict) else None
    value = execution.get("taskSupport") if isinstance(execution, dict) else None
    return value if value in TOOL_SUPPORT else "forbidden"


def creation(request: Message, tool_support: str, upstream_tasks: bool) -> str:
    """How to run a 2026 ``tools/call``: ``"task"`` (task-augment it upstream), ``"direct"`` (pass it on),
    or ``"missing"`` (answer -32021: the tool only runs as a task and the client cannot take one)."""
    if not upstream_tasks or tool_support == "forbidden":
        return "direct"
    declared = declares_extension(request)
    if tool_support == "required":
        return "task" if declared else "missing"
    return "task" if declared else "direct"


def create_request(request: Message, upstream_rid: int, ttl_ms: int | None) -> Message:
    """The 2025 task-augmented ``tools/call`` for a 2026 one (2025 §Creating Tasks; 2026 envelope removed)."""
    params = request.get("params") if isinstance(request.get("params"), dict) else {}
    out: dict[str, Any] = {k: copy.deepcopy(v) for k, v in params.items()
                           if k not in ("_meta", "inputResponses", "requestState", "task")}
    meta = {k: v for k, v in (params.get("_meta") or {}).items()
            if k not in eras.MODERN_REQUEST_META_KEYS and k != "progressToken"}
    if meta:
        out["_meta"] = meta
    out["task"] = {"ttl": ttl_ms} if ttl_ms is not None else {}
    return {"jsonrpc": "2.0", "id": upstream_rid, "method": "tools/call", "params": out}


def legacy_task_of(result: Any) -> dict[str, Any]:
    """The Task inside a 2025 CreateTaskResult, or -32603 when the server answered something else."""
    task = result.get("task") if isinstance(result, dict) else None
    if not isinstance(task, dict) or not isinstance(task.get("taskId"), str) or task.get("status") not in (
            "working", "input_required", "completed", "failed", "cancelled"):
        raise FrameError(INTERNAL_ERROR, "Upstream answered a task-augmented tools/call without a valid CreateTaskResult")
    return task


def new_record(created: Any, *, bridge_id: str, principal: str | None, now_ms: int, request: Message) -> TaskRecord:
    task = legacy_task_of(created)
    meta = eras.request_meta(request) or {}
    caps = meta.get(eras.META_CLIENT_CAPABILITIES)
    record = TaskRecord(
        bridge_id=bridge_id, upstream_id=task["taskId"], principal=principal, client_era=eras.MODERN,
        upstream_era=eras.LEGACY, status="working", created_ms=now_ms, updated_ms=now_ms,
        client_capabilities=copy.deepcopy(caps) if isinstance(caps, dict) else {},
    )
    merge(record, task, now_ms)
    return record


def merge(record: TaskRecord, task: Any, now_ms: int) -> bool:
    """Apply a 2025 Task (tasks/get, tasks/cancel result, notifications/tasks/status) to the record.
    Returns whether anything the client can see changed. Terminal records do not move."""
    if not isinstance(task, dict) or record.terminal:
        return False
    before = (record.status, record.status_message, record.ttl_ms, record.poll_interval_ms)
    status = task.get("status")
    if status in ("working", "input_required", "cancelled"):
        record.status = status
    elif status in ("completed", "failed") and record.result is None and record.error is None:
        # Terminal upstream, payload not fetched yet: the client keeps seeing "working" until the
        # bridge has the result to inline (ext §Task Polling: completed carries result).
        record.status = "working"
    apply_timing(record, task, "ttl", "pollInterval")
    changed = before != (record.status, record.status_message, record.ttl_ms, record.poll_interval_ms)
    if changed:
        record.updated_ms = now_ms
    return changed


def upstream_terminal(task: Any) -> bool:
    return isinstance(task, dict) and task.get("status") in ("completed", "failed", "cancelled")


def settle(record: TaskRecord, response: Message, now_ms: int) -> None:
    """The 2025 ``tasks/result`` answer makes the record terminal.

    * a JSON-RPC error -> ``failed`` with that error (2025 §Result Retrieval; ext §Task Execution Errors);
    * a result -> ``completed`` with it, even when ``isError`` (ext: failed is only for JSON-RPC errors);
    * a task the client cancelled stays ``cancelled`` (both eras: terminal states do not change).
    """
    if record.terminal:
        return
    record.updated_ms = now_ms
    for entry in record.inputs.values():
        entry.answered = True
    if "error" in response:
        err = response["error"] if isinstance(response.get("error"), dict) else {}
        record.error = {"code": err.get("code", INTERNAL_ERROR) if isinstance(err.get("code"), int) else INTERNAL_ERROR,
                        "message": str(err.get("message", "Task failed"))}
        if "data" in err:
            record.error["data"] = err["data"]
        record.status = "failed"
        return
    result = response.get("result")
    record.result = strip_related_task(result if isinstance(result, dict) else {})
    if record.result.get("content") is None and record.method == "tools/call":
        # 2025 servers answer a cancelled/failed task's tasks/result with only _meta: not a CallToolResult.
        record.result = None
        record.error = {"code": INTERNAL_ERROR, "message": record.status_message or "Task ended without a result"}
        record.status = "failed"
        return
    record.status = "completed"


def detailed(record: TaskRecord) -> dict[str, Any]:
    """The 2026 DetailedTask of a record (ext §Tasks). ``input_required`` only once there is
    something to answer (the schema requires ``inputRequests``); until then the client sees working."""
    status = record.status
    pending = record.pending_inputs()
    if status == "input_required" and not pending:
        status = "working"
    if status == "working" and pending:
        status = "input_required"
    out: dict[str, Any] = {
        "taskId": record.bridge_id, "status": status, "createdAt": iso(record.created_ms),
        "lastUpdatedAt": iso(record.updated_ms), "ttlMs": record.ttl_ms,
    }
    if record.status_message is not None:
        out["statusMessage"] = record.status_message
    if record.poll_interval_ms is not None:
        out["pollIntervalMs"] = record.poll_interval_ms
    if status == "input_required":
        out["inputRequests"] = {k: {"method": e.method, "params": copy.deepcopy(e.params)} for k, e in pending.items()}
    elif status == "completed":
        out["result"] = copy.deepcopy(record.result or {})
    elif status == "failed":
        out["error"] = copy.deepcopy(record.error or {"code": INTERNAL_ERROR, "message": "Task failed"})
    return out


def create_result(record: TaskRecord) -> Message:
    """2026 CreateTaskResult: Result & Task, flat, ``resultType: "task"`` (ext §Task Creation)."""
    task = detailed(record)
    for key in ("inputRequests", "result", "error"):
        task.pop(key, None)
    return {"resultType": "task", **task}


def get_result(record: TaskRecord) -> Message:
    """2026 GetTaskResult: ``resultType: "complete"`` & DetailedTask (ext §Task Polling)."""
    return {"resultType": "complete", **detailed(record)}


def ack() -> Message:
    """Empty acknowledgement of tasks/update and tasks/cancel (ext §Task Update Requests, §Task Cancellation)."""
    return {"resultType": "complete"}


def status_notification(record: TaskRecord, listen_id: Any = None) -> Message:
    """``notifications/tasks`` with the full DetailedTask (ext §Task Status Notifications), tagged with
    the listen stream's ``subscriptionId`` like every listen event (2026-07-28 schema ``subscriptions/listen``)."""
    params = detailed(record)
    if listen_id is not None:
        params["_meta"] = {eras.META_SUBSCRIPTION_ID: listen_id}
    return {"jsonrpc": "2.0", "method": "notifications/tasks", "params": params}


def add_input(record: TaskRecord, server_request: Message, now_ms: int) -> str:
    """A legacy server->client request of the task becomes an ``inputRequests`` entry (2025 §Input
    Required Status -> ext §Task Update Requests). The related-task ``_meta`` is 2025-only: removed."""
    key = new_input_key(record)
    params = server_request.get("params") if isinstance(server_request.get("params"), dict) else {}
    record.inputs[key] = InputEntry(key=key, method=server_request["method"], params=strip_related_task(params),
                                    peer_id=server_request.get("id"))
    if not record.terminal:
        record.status = "input_required"
        record.updated_ms = now_ms
    return key


def answers(record: TaskRecord, input_responses: Any, now_ms: int) -> list[Message]:
    """``tasks/update`` ``inputResponses`` -> the 2025 JSON-RPC responses to send to the server.

    Keys not outstanding (never issued, already answered) are ignored (ext §Task Update Requests:
    SHOULD ignore). A partial set leaves the rest outstanding."""
    if not isinstance(input_responses, dict):
        raise FrameError(INVALID_PARAMS, "Invalid params: inputResponses must be an object")
    out: list[Message] = []
    for key, value in input_responses.items():
        entry = record.inputs.get(key)
        if entry is None or entry.answered or not isinstance(value, dict):
            continue
        entry.answered = True
        result = {k: v for k, v in value.items() if k != "resultType"}
        out.append({"jsonrpc": "2.0", "id": entry.peer_id, "result": result})
    if out and not record.pending_inputs() and record.status == "input_required":
        record.status = "working"
        record.updated_ms = now_ms
    return out


def refusals(record: TaskRecord) -> list[Message]:
    """Answers for inputs still outstanding when the task ends from the client's side (cancel): the
    server must not wait forever (elicitation: cancel; others: an error)."""
    out: list[Message] = []
    for entry in record.pending_inputs().values():
        entry.answered = True
        if entry.method == "elicitation/create":
            out.append({"jsonrpc": "2.0", "id": entry.peer_id, "result": {"action": "cancel"}})
        else:
            out.append({"jsonrpc": "2.0", "id": entry.peer_id,
                        "error": {"code": INTERNAL_ERROR, "message": "The task was cancelled"}})
    return out


def mark_cancelled(record: TaskRecord, now_ms: int, message: str | None = None) -> None:
    if record.terminal:
        return
    record.status = "cancelled"
    record.updated_ms = now_ms
    if message:
        record.status_message = message


def split_listen(params: Any) -> tuple[list[str], dict[str, Any]]:
    """``subscriptions/listen`` params -> (the task ids asked for, the params without them)
    (ext §Task Status Notifications: ``notifications.taskIds``)."""
    params = dict(params) if isinstance(params, dict) else {}
    filt = dict(params.get("notifications") or {}) if isinstance(params.get("notifications"), dict) else {}
    ids = filt.pop("taskIds", None)
    params["notifications"] = filt
    wanted = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
    return wanted, params


def acknowledged(note: Message, task_ids: list[str]) -> Message:
    """The listen acknowledgement with the task ids the bridge agreed to report (ext: acknowledged
    ``notifications.taskIds``)."""
    if note.get("method") != "notifications/subscriptions/acknowledged":
        return note
    params = dict(note.get("params") or {})
    filt = dict(params.get("notifications") or {})
    filt["taskIds"] = list(task_ids)
    params["notifications"] = filt
    return {**note, "params": params}


__all__ = ["EXTENSION"]

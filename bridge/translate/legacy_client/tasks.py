"""Direction B tasks, pure: a 2025-11-25 client using experimental tasks, a 2026-07-28 server with the
``io.modelcontextprotocol/tasks`` extension.

Rules (left: the 2025 client, ``2025-11-25 basic/utilities/tasks.mdx``; right: the 2026 server,
ext = ``experimental-ext-tasks`` draft ``tasks.mdx``):

=====================  ==========================================  ==========================================
rule                   2025 client                                 2026 server (ext)
=====================  ==========================================  ==========================================
advertise              ``capabilities.tasks`` {list, cancel,       discover ``capabilities.extensions``
                       requests.tools.call} (§Server Capabilities) [tasks] (ext §Capability Negotiation)
tool negotiation       ``execution.taskSupport: "optional"`` on    none: the server decides per call
                       each tool (§Tool-Level Negotiation)         (ext §Capability Negotiation)
opt-in                 ``params.task`` {ttl}                       extension declared in the request's
                                                                   ``clientCapabilities``
creation               ``{task: Task}`` (§Creating Tasks); a       ``resultType: "task"`` flat; or a plain
                       plain result is wrapped in a task the       result (the server chose not to task it)
                       bridge completes itself
poll                   ``tasks/get`` -> Task                       ``tasks/get`` -> DetailedTask
result                 ``tasks/result`` blocks until terminal,     polled ``tasks/get``; ``inputRequests`` sent
                       carrying the task's server->client          to the 2025 client as real requests (with
                       requests (§Result Retrieval, §Input         related-task ``_meta``), answers fed back
                       Required Status)                            with ``tasks/update``
tool error             ``failed`` when result ``isError``          ``completed`` with that result
                       (§Task Status); tasks/result returns it
list                   ``tasks/list`` (paginated)                  none (ext §Security Considerations): the
                                                                   bridge lists the session's own tasks
cancel                 ``tasks/cancel`` -> Task ``cancelled``;     ``tasks/cancel`` -> empty ack (cooperative)
                       terminal -> -32602 (§Task Cancellation)
status notification    ``notifications/tasks/status`` (Task)       ``notifications/tasks`` (DetailedTask)
=====================  ==========================================  ==========================================

The bridge's own 2025 task id is ``bridge_id``; ``upstream_id`` is the 2026 server's.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.eras import META_RELATED_TASK
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, FrameError, Message
from mcp_eras.bridge.translate.tasks import (
    EXTENSION,
    STATUSES,
    TASK_METHODS_2025,
    InputEntry,
    TaskRecord,
    advertises_extension,
    apply_timing,
    iso,
    lost,
    with_extension,
)

TASK_REQUEST_META = "dev.mcp-eras/task-request"
"""Where the legacy front leaves a 2025 client's ``params.task`` on the canonical request, for the tasks
layer to consume (a bridge-internal ``_meta`` key; it never reaches a server)."""

LIST_PAGE = 50
"""``tasks/list`` page size (2025 §Task Listing: cursor-based pagination)."""

LEGACY_TASKS_CAPABILITY = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}


def legacy_capabilities(init_caps: dict[str, Any], discover_caps: Any) -> dict[str, Any]:
    """2025 ``InitializeResult.capabilities`` with ``tasks`` exactly when the 2026 server declares the extension."""
    if not advertises_extension(discover_caps):
        return init_caps
    return {**init_caps, "tasks": copy.deepcopy(LEGACY_TASKS_CAPABILITY)}


def tools_with_task_support(result: Message) -> Message:
    """tools/list for a 2025 client: every tool may run as a task (the 2026 server decides per call)."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return result
    out = []
    for tool in tools:
        if isinstance(tool, dict) and not isinstance(tool.get("execution"), dict):
            tool = {**tool, "execution": {"taskSupport": "optional"}}
        out.append(tool)
    return {**result, "tools": out}


def task_request(request: Message) -> dict[str, Any] | None:
    """The 2025 client's ``params.task`` (carried under ``TASK_REQUEST_META``), or None."""
    meta = eras.request_meta(request) or {}
    value = meta.get(TASK_REQUEST_META)
    if value is None:
        params = request.get("params")
        value = params.get("task") if isinstance(params, dict) else None
    return value if isinstance(value, dict) else None


def modern_call(request: Message) -> Message:
    """The canonical ``tools/call`` with the extension declared and the 2025 task ask removed."""
    params = {k: v for k, v in (request.get("params") or {}).items() if k != "task"}
    meta = {k: v for k, v in (params.get("_meta") or {}).items() if k != TASK_REQUEST_META}
    meta[eras.META_CLIENT_CAPABILITIES] = with_extension(meta.get(eras.META_CLIENT_CAPABILITIES))
    params["_meta"] = meta
    return {**request, "params": params}


def without_task_request(request: Message) -> Message:
    """A canonical request with the 2025 task ask removed (when the server cannot take tasks)."""
    params = request.get("params")
    if not isinstance(params, dict):
        return request
    meta = params.get("_meta")
    if not isinstance(meta, dict) or TASK_REQUEST_META not in meta:
        return request
    return {**request, "params": {**params, "_meta": {k: v for k, v in meta.items() if k != TASK_REQUEST_META}}}


def new_record(result: Any, *, bridge_id: str, principal: str | None, session: str | None, now_ms: int,
               requested_ttl: int | None) -> TaskRecord:
    """A record for the 2026 answer to a task-requested call: a CreateTaskResult, or a final result
    (the server chose to run it synchronously: the bridge completes the task itself)."""
    if not isinstance(result, dict):
        raise FrameError(INTERNAL_ERROR, "Upstream returned a malformed result")
    record = TaskRecord(bridge_id=bridge_id, upstream_id=None, principal=principal, client_era=eras.LEGACY,
                        upstream_era=eras.MODERN, status="working", created_ms=now_ms, updated_ms=now_ms,
                        ttl_ms=requested_ttl, session=session)
    if result.get("resultType") == "task":
        if not isinstance(result.get("taskId"), str):
            raise FrameError(INTERNAL_ERROR, "Upstream CreateTaskResult has no taskId")
        record.upstream_id = result["taskId"]
        merge(record, result, now_ms)
        return record
    record.status = "completed"
    record.result = {k: v for k, v in result.items() if k not in ("resultType", "ttlMs", "cacheScope")}
    return record


def merge(record: TaskRecord, task: Any, now_ms: int) -> bool:
    """Apply a 2026 DetailedTask (tasks/get result, notifications/tasks params) to the record."""
    if not isinstance(task, dict) or record.terminal:
        return False
    before = (record.status, record.status_message, len(record.inputs))
    status = task.get("status")
    if status in STATUSES:
        record.status = status
    apply_timing(record, task, "ttlMs", "pollIntervalMs")
    if status == "completed":
        result = task.get("result")
        record.result = copy.deepcopy(result) if isinstance(result, dict) else {}
    elif status == "failed":
        err = task.get("error")
        record.error = copy.deepcopy(err) if isinstance(err, dict) else {"code": INTERNAL_ERROR, "message": "Task failed"}
    elif status == "input_required":
        requests = task.get("inputRequests")
        for key, req in (requests.items() if isinstance(requests, dict) else ()):
            if key in record.inputs or not isinstance(req, dict) or not isinstance(req.get("method"), str):
                continue  # keys are unique per task lifetime (ext §Task Update Requests): seen means sent
            params = req.get("params") if isinstance(req.get("params"), dict) else {}
            record.inputs[key] = InputEntry(key=key, method=req["method"], params=copy.deepcopy(params))
    changed = before != (record.status, record.status_message, len(record.inputs))
    if changed:
        record.updated_ms = now_ms
    return changed


def legacy_status(record: TaskRecord) -> str:
    """2026 ``completed`` with a tool error is 2025 ``failed`` (2025 §Task Status: isError -> failed)."""
    if record.status == "completed" and isinstance(record.result, dict) and record.result.get("isError") is True:
        return "failed"
    return record.status


def legacy_task(record: TaskRecord) -> dict[str, Any]:
    """The 2025 Task (2025 §Data Types "Task"): ``ttl`` (null = unlimited), ``pollInterval``."""
    out: dict[str, Any] = {
        "taskId": record.bridge_id, "status": legacy_status(record), "createdAt": iso(record.created_ms),
        "lastUpdatedAt": iso(record.updated_ms), "ttl": record.ttl_ms,
    }
    message = record.status_message
    if message is None and record.status == "failed" and record.error:
        message = str(record.error.get("message", ""))
    if message is not None:
        out["statusMessage"] = message
    if record.poll_interval_ms is not None:
        out["pollInterval"] = record.poll_interval_ms
    return out


def create_result(record: TaskRecord) -> Message:
    return {"task": legacy_task(record)}


def status_notification(record: TaskRecord) -> Message:
    """2025 ``notifications/tasks/status`` (no related-task ``_meta``: 2025 §Task Notifications)."""
    return {"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": legacy_task(record)}


def result_step(record: TaskRecord) -> tuple[str, Any]:
    """One step of a 2025 ``tasks/result`` served by polling 2026 ``tasks/get`` (2025 §Result Retrieval):

    * ``("done", response_body)`` -- terminal: ``{"result": ...}`` or ``{"error": ...}``;
    * ``("ask", [InputEntry])`` -- input requests not yet sent to the client;
    * ``("wait", poll_ms)`` -- poll again after the server's suggested interval.
    """
    if record.terminal:
        related = {META_RELATED_TASK: {"taskId": record.bridge_id}}
        if record.status == "completed":
            result = copy.deepcopy(record.result or {})
            result["_meta"] = {**(result.get("_meta") or {}), **related}
            return "done", {"result": result}
        if record.status == "failed":
            return "done", {"error": copy.deepcopy(record.error or {"code": INTERNAL_ERROR, "message": "Task failed"})}
        return "done", {"error": {"code": INTERNAL_ERROR, "message": "The task was cancelled", "data": {"taskId": record.bridge_id}}}
    unsent = [e for e in record.inputs.values() if e.peer_id is None and not e.answered]
    if unsent:
        return "ask", unsent
    return "wait", record.poll_interval_ms or 1000


def input_request(record: TaskRecord, entry: InputEntry, request_id: Any) -> Message:
    """A 2026 input request as the 2025 server->client request, associated with the task
    (2025 §Associating Task-Related Messages: related-task ``_meta`` MUST be present)."""
    entry.peer_id = request_id
    params = copy.deepcopy(entry.params)
    params["_meta"] = {**(params.get("_meta") or {}), META_RELATED_TASK: {"taskId": record.bridge_id}}
    return {"jsonrpc": "2.0", "id": request_id, "method": entry.method, "params": params}


def input_response(entry: InputEntry, response: Message) -> dict[str, Any]:
    """The 2025 client's answer as a 2026 InputResponse (an elicitation error becomes a cancel)."""
    entry.answered = True
    if "error" in response or not isinstance(response.get("result"), dict):
        if entry.method == "elicitation/create":
            return {"action": "cancel"}
        raise FrameError(INTERNAL_ERROR, f"The client failed input request {entry.key!r} ({entry.method})",
                         {"error": response.get("error")})
    return strip_meta(response["result"])


def strip_meta(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "_meta"}


def update_params(record: TaskRecord, responses: dict[str, Any]) -> dict[str, Any]:
    """2026 ``tasks/update`` params (the shell stamps the request ``_meta``)."""
    return {"taskId": record.upstream_id, "inputResponses": responses}


def list_result(records: list[TaskRecord], cursor: Any) -> Message:
    """2025 ``tasks/list`` from this session's records; the cursor is opaque (2025 §Task Listing)."""
    start = 0
    if cursor is not None:
        try:
            start = int(base64.urlsafe_b64decode(str(cursor).encode()).decode())
        except (ValueError, UnicodeDecodeError):
            raise FrameError(INVALID_PARAMS, "Invalid params: unknown cursor") from None
        if start < 0 or start > len(records):
            raise FrameError(INVALID_PARAMS, "Invalid params: unknown cursor")
    page = records[start:start + LIST_PAGE]
    out: Message = {"tasks": [legacy_task(r) for r in page]}
    if start + LIST_PAGE < len(records):
        out["nextCursor"] = base64.urlsafe_b64encode(str(start + LIST_PAGE).encode()).decode()
    return out


def check_cancellable(record: TaskRecord) -> None:
    """2025 §Task Cancellation: a terminal task -> -32602."""
    if record.terminal:
        raise FrameError(INVALID_PARAMS, f"Cannot cancel task: already in terminal status '{legacy_status(record)}'")


def cancelled(record: TaskRecord, now_ms: int) -> Message:
    """2025 ``tasks/cancel`` result: the Task, ``cancelled`` before the response (2025 §Task Cancellation
    MUST; the 2026 ack is cooperative, so the bridge's record is what the client sees from now on)."""
    if not record.terminal:
        record.status = "cancelled"
        record.status_message = "The task was cancelled by request."
        record.updated_ms = now_ms
    return legacy_task(record)


__all__ = ["EXTENSION"]


def upstream_request(request: Message, method: str, params: dict[str, Any]) -> Message:
    """A 2026 tasks-extension request on behalf of the 2025 client's request: the same ``_meta`` (as the
    legacy front stamped it), with the extension declared (ext tasks.mdx §Capability Negotiation)."""
    meta = {k: v for k, v in (eras.request_meta(request) or {}).items() if k != TASK_REQUEST_META}
    meta[eras.META_CLIENT_CAPABILITIES] = with_extension(meta.get(eras.META_CLIENT_CAPABILITIES))
    return {"jsonrpc": "2.0", "id": request.get("id"), "method": method, "params": {**params, "_meta": meta}}


def input_round(record: TaskRecord, entries: list[InputEntry]) -> Message:
    """The task's unsent 2026 input requests as an ``input_required`` result for the legacy front's MRTR
    loop, which sends them to the 2025 client as real requests (2025 §Input Required Status). Each
    carries the related-task ``_meta`` (2025 §Associating Task-Related Messages); ``requestState``
    names the task, so the retry of ``tasks/result`` finds it."""
    requests = {}
    for entry in entries:
        entry.peer_id = "sent"
        params = copy.deepcopy(entry.params)
        params["_meta"] = {**(params.get("_meta") or {}), META_RELATED_TASK: {"taskId": record.bridge_id}}
        requests[entry.key] = {"method": entry.method, "params": params}
    return {"resultType": "input_required", "inputRequests": requests, "requestState": record.bridge_id}


def take_answers(record: TaskRecord, input_responses: Any) -> dict[str, Any]:
    """The client's answers (already 2026 InputResponses, mapped by the legacy front) to forward with
    ``tasks/update``; only keys the bridge asked and that are still unanswered."""
    out: dict[str, Any] = {}
    for key, value in (input_responses.items() if isinstance(input_responses, dict) else ()):
        entry = record.inputs.get(key)
        if entry is not None and not entry.answered and isinstance(value, dict):
            entry.answered = True
            out[key] = value
    return out


# --- the layer's decisions ---------------------------------------------------------------------------------

MAX_POLL_S = 2.0
"""Cap on the wait between two upstream ``tasks/get`` while a ``tasks/result`` blocks."""


def served_here(request: Message, client_era: str) -> bool:
    """Whether the 2025 clients' task layer takes a request: a 2025 client's task method, its ``tools/list`` (to
    mark task support) or its ``tools/call`` that asked for a task (``params.task``)."""
    if client_era != eras.LEGACY:
        return False
    method = request.get("method")
    return method in TASK_METHODS_2025 or method == "tools/list" or (method == "tools/call" and task_request(request) is not None)


def route(method: Any, supported: bool) -> str:
    """What the layer does with a request it takes, the server's support of the extension known: ``tools`` (list,
    marked when ``supported``), ``plain`` (a task-augmented call to a server without tasks is processed normally:
    2025 §Task Support and Handling), ``create``, ``not_found`` (a task method without the extension), or the task
    method's own name: ``list``, ``get``, ``cancel``, ``result``."""
    if method == "tools/list":
        return "tools"
    if method == "tools/call":
        return "create" if supported else "plain"
    if not supported:
        return "not_found"
    return str(method).removeprefix("tasks/")


def requested_ttl(task_request_params: dict[str, Any]) -> int | None:
    """The ``ttl`` a 2025 client asked for in ``params.task`` (2025 §Creating Tasks), when it is an integer."""
    ttl = task_request_params.get("ttl")
    return ttl if isinstance(ttl, int) else None


def creates_task(result: Any) -> bool:
    """Whether the server's answer to a task-augmented call created something to record: any result but an
    ``input_required`` round (before the task exists; the front drives it) or an error."""
    return isinstance(result, dict) and result.get("resultType") != "input_required"


def refreshed(record: TaskRecord, response: Message, now_ms: int) -> bool:
    """A 2026 ``tasks/get`` answer applied to the record; whether the client can see a change. An invalid-params
    error means the server no longer knows the task: it is lost."""
    err = response.get("error")
    if isinstance(err, dict) and err.get("code") == INVALID_PARAMS:
        lost(record, "the upstream no longer knows the task", now_ms)
        return True
    return merge(record, response.get("result"), now_ms)


def input_refused(rid: Any, error: Any) -> Message:
    """The answer when the server refused what ``tasks/result`` forwarded with ``tasks/update``."""
    return jsonrpc.error_response(rid, INTERNAL_ERROR, "Upstream refused the task's input", error)


def poll_wait_s(poll_ms: int, left_s: float) -> float:
    """The wait before the next poll: the server's interval, at most ``MAX_POLL_S`` and what the request has left."""
    return min(poll_ms / 1000, MAX_POLL_S, left_s)


def result_timeout(record: TaskRecord) -> FrameError:
    """A ``tasks/result`` that outlived its request's timeout: the client asks again (2025 §Result Retrieval)."""
    return FrameError(INTERNAL_ERROR, "The task did not finish within the request timeout; call tasks/result again",
                      {"taskId": record.bridge_id, "status": legacy_status(record)})


def answer(rid: Any, result: dict[str, Any]) -> Message:
    """A 2025 task method's answer as the legacy front takes it: a complete canonical result (the front drops
    ``resultType`` for its 2025 client)."""
    return jsonrpc.result_response(rid, {**result, "resultType": "complete"})


def list_answer(rid: Any, records: list[TaskRecord], cursor: Any) -> Message:
    """``tasks/list`` of a 2025 client: the 2025 clients' tasks among its principal's records (2025 §Task Listing; a
    2026 client's task of the same principal is not listed: it cannot be read through the 2025 methods)."""
    return answer(rid, list_result([r for r in records if r.client_era == eras.LEGACY], cursor))

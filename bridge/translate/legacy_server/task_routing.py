"""Direction A tasks, the layer's decisions, pure: which requests the tasks layer takes from a 2026 client, where each
goes, what a dedicated 2025 task session does with what its server sends, and what the answers of the upstream's
``tasks/result``, ``tasks/get`` and ``tasks/cancel`` do to a task record.

The translation of the frames themselves is ``mcp_eras.bridge.translate.legacy_server.tasks``; the shells
(``mcp_eras.bridge.layers.tasks``, ``tasks_channel``) open the sessions, send, wait and keep the records. The 2025
rules cited are ``2025-11-25 basic/utilities/tasks.mdx``; ext = the ``io.modelcontextprotocol/tasks`` extension's
``tasks.mdx``.
"""

from __future__ import annotations

from typing import Any

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate import tasks as tk
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, FrameError, Message
from mcp_eras.bridge.translate.legacy_client.tasks import legacy_capabilities
from mcp_eras.bridge.translate.legacy_server.tasks import add_input, advertise, merge, refusals, settle, tool_task_support

EXTENSION_AWARE = frozenset({"server/discover", "tools/call", "subscriptions/listen"})
"""Methods besides the extension's own that the task layer may change; others pass through untouched."""
TRANSPORT_FAILURES = ("Upstream unreachable", "Upstream closed the response stream", "Upstream did not answer")
"""Error messages the bridge's own transports synthesize when a response stream breaks."""
MAX_TOOL_PAGES = 100
"""``tools/list`` pages read to learn the tools' task support (a server that pages forever is cut off)."""


def touches_extension(method: Any) -> bool:
    """Whether the tasks layer may change a request of this method (else it goes to the upstream untouched)."""
    return method in EXTENSION_AWARE or method in eras.TASKS_EXTENSION_METHODS


def listens_for_tasks(request: Message) -> bool:
    """Whether a ``subscriptions/listen`` asks for task status (``notifications.taskIds``, ext §Task Status
    Notifications); one that does not is the upstream's alone."""
    wanted = (request.get("params") or {}).get("notifications")
    return isinstance(wanted, dict) and "taskIds" in wanted


def dispatch(request: Message, supported: bool, task_session: bool) -> str:
    """Where a request the layer takes goes, once the server's task support is known (``supported``: its 2025
    ``initialize`` declared task-augmented ``tools/call``; ``task_session``: the view is a task session):

    * ``not_found``: an extension method on a server without tasks (-32601: the extension is not offered);
    * ``task``: ``tasks/get``/``tasks/update``/``tasks/cancel``, served from the bridge's records;
    * ``listen_plain``: a listen with ``taskIds`` on a server without tasks (the ids dropped);
    * ``listen``: a listen with ``taskIds`` the bridge reports on;
    * ``create``: a ``tools/call`` that may create a task (``tasks.creation`` decides by the tool);
    * ``inner``: a ``tools/call`` the upstream answers directly.

    An extension request whose client did not declare the extension is refused (ext §Capability Negotiation)."""
    method = request.get("method")
    if method in eras.TASKS_EXTENSION_METHODS or method == "subscriptions/listen":
        if not supported:
            return "not_found" if method != "subscriptions/listen" else "listen_plain"
        if not tk.declares_extension(request):
            raise tk.missing_extension()
        return "task" if method != "subscriptions/listen" else "listen"
    return "create" if supported and task_session else "inner"


def discovered(result: Message, server_caps: dict[str, Any] | None, client_era: str) -> Message:
    """The upstream's DiscoverResult as the layer answers it: the extension advertised when the 2025 server behind
    it has tasks (``server_caps``: its ``initialize`` capabilities; None for a 2026 upstream, which advertises it
    itself), and for a 2025 client the 2025 ``capabilities.tasks`` the legacy front builds its InitializeResult from
    (direction B)."""
    if server_caps is not None:
        result = advertise(result, server_caps)
    if client_era == eras.LEGACY and isinstance(result.get("capabilities"), dict):
        result = {**result, "capabilities": legacy_capabilities(result["capabilities"], result["capabilities"])}
    return result


def method_not_found(request: Message) -> Message:
    return jsonrpc.error_response(request["id"], METHOD_NOT_FOUND, f"Method not found: {request.get('method')}")


def input_capabilities(request: Message) -> dict[str, Any]:
    """The 2025 ``initialize`` capabilities a task session declares for this caller: the input kinds it can answer
    (a task may only ask what its client can answer)."""
    meta = eras.request_meta(request) or {}
    caps = meta.get(eras.META_CLIENT_CAPABILITIES)
    caps = caps if isinstance(caps, dict) else {}
    return {k: dict(caps[k]) if k != "roots" else {} for k in ("elicitation", "sampling", "roots") if isinstance(caps.get(k), dict)}


# --- the task session -----------------------------------------------------------------------------------

SESSION_OVER = frozenset({"lost", "closed"})
"""States of a task session that no request may use again (the next use opens a new one)."""


def session_key(principal: str | None, caps: dict[str, Any]) -> tuple[str | None, str]:
    """Which task session a caller's task runs on: one per principal and declared input capabilities (2025 tasks
    are bound to the session that created them, and a task may only ask what its client can answer)."""
    return principal, jsonrpc.dumps(caps).decode()


def session_over(state: str) -> bool:
    return state in SESSION_OVER



def session_initialize(caps: dict[str, Any], client_info: dict[str, Any]) -> dict[str, Any]:
    """The ``initialize`` params of a task session (2025-11-25 basic/lifecycle.mdx §Initialization)."""
    return {"protocolVersion": eras.LEGACY, "capabilities": caps, "clientInfo": client_info}


def inbound(msg: Message) -> str:
    """What a task session does with a message from its server: ``response`` (to its own request), ``ping``
    (answered at once), ``input`` (a task's elicitation/sampling/roots request, 2025 §Input Required Status),
    ``unknown`` (another request: -32601), ``status`` (``notifications/tasks/status``), ``tools_changed`` (the
    tools' task support is read again) or ``ignore``."""
    if jsonrpc.is_response(msg):
        return "response"
    method = msg.get("method")
    if jsonrpc.is_request(msg):
        if method == "ping":
            return "ping"
        return "input" if method in eras.INPUT_REQUEST_METHODS else "unknown"
    if method == "notifications/tasks/status":
        return "status"
    return "tools_changed" if method == "notifications/tools/list_changed" else "ignore"


def own_request_id(response: Message) -> int | None:
    """The id of the session's own request a response answers (the session mints integers)."""
    rid = response.get("id")
    return rid if isinstance(rid, int) else None


def no_answer(rid: Any, method: str) -> Message:
    """The session's own request got no answer in time (the shell also sends ``cancel_notice``)."""
    return jsonrpc.error_response(rid, INTERNAL_ERROR, f"Upstream did not answer {method} in time")


def cancel_notice(rid: Any) -> Message:
    """2025-11-25 basic/utilities/cancellation.mdx: the request the session gave up on."""
    return jsonrpc.notification("notifications/cancelled", {"requestId": rid, "reason": "timeout"})


def session_lost(rid: Any, why: str) -> Message:
    """The answer of a request still open when its session ended."""
    return jsonrpc.error_response(rid, INTERNAL_ERROR, f"Upstream failed: {why}", {"lost": True})


def tools_page(response: Message) -> tuple[dict[str, str], str | None]:
    """One ``tools/list`` page: each named tool's task support (2025 §Tool-Level Negotiation) and the next cursor."""
    result = response.get("result") if isinstance(response.get("result"), dict) else {}
    support = {tool["name"]: tool_task_support(tool) for tool in result.get("tools") or []
               if isinstance(tool, dict) and isinstance(tool.get("name"), str)}
    cursor = result.get("nextCursor")
    return support, cursor if isinstance(cursor, str) else None


# --- a task's server requests and the upstream's answers --------------------------------------------------


def stray_refusals(server_request: Message) -> list[Message]:
    """The answer to a server request no live task can take (the standard refusal of an outstanding input)."""
    record = tk.TaskRecord(bridge_id="", upstream_id=None, principal=None, client_era=eras.MODERN, upstream_era=eras.LEGACY,
                           status="cancelled", created_ms=0, updated_ms=0)
    record.inputs["x"] = tk.InputEntry("x", str(server_request.get("method")), {}, peer_id=server_request.get("id"))
    return refusals(record)


def sole_live_task(live: list[tk.TaskRecord]) -> tk.TaskRecord | None:
    """The task of a server request without the related-task ``_meta`` (2025 §Associating Task-Related Messages
    says it MUST carry it; some servers omit it), attributed only when unambiguous: among the session's ``live``
    tasks, the one waiting for input, else the only one."""
    candidates = [r for r in live if r.status == "input_required"] or live
    return candidates[0] if len(candidates) == 1 else None


def take_input(record: tk.TaskRecord | None, server_request: Message, now_ms: int) -> list[Message]:
    """A task's server request kept on its record for the client to answer (nothing to send), or the refusals
    to send when no live task can take it."""
    if record is None or record.terminal:
        return stray_refusals(server_request)
    try:
        add_input(record, server_request, now_ms)
    except FrameError:
        return stray_refusals(server_request)
    return []


def stream_broke(response: Message, session_ready: bool) -> bool:
    """Whether a ``tasks/result`` failed because its response stream broke while the session is still up: the
    task did not fail; it is asked again."""
    err = response.get("error")
    return isinstance(err, dict) and session_ready and str(err.get("message", "")).startswith(TRANSPORT_FAILURES)


def needs_status(response: Message) -> bool:
    """Whether a ``tasks/result`` answer carries no payload (a crashed or failed task): its ``tasks/get``
    statusMessage explains why."""
    result = response.get("result")
    return isinstance(result, dict) and not isinstance(result.get("content"), list)


def finish(record: tk.TaskRecord, response: Message, status: Any, session_ready: bool, now_ms: int) -> None:
    """The upstream's final ``tasks/result`` (and ``tasks/get`` result ``status``, if fetched) applied to the record:
    an invalid-params error means the server forgot the task, an error after the session ended means it was lost
    with it, anything else settles it (2025 §Result Retrieval)."""
    merge(record, status, now_ms)
    err = response.get("error") if isinstance(response.get("error"), dict) else None
    if err is not None and err.get("code") == INVALID_PARAMS:
        tk.lost(record, "the upstream no longer knows the task", now_ms)
    elif err is not None and not session_ready:
        tk.lost(record, str(err.get("message")), now_ms)
    else:
        settle(record, response, now_ms)


def pump_ended(session_ready: bool) -> str:
    """Why a task ends when its ``tasks/result`` pump stops without an answer."""
    return "no result in time" if session_ready else "the upstream session ended"


def polled(record: tk.TaskRecord, task: Any, payload: Message | None, now_ms: int) -> tuple[bool, bool]:
    """A ``tasks/get`` poll of the upstream applied to the record: its Task, and the ``tasks/result`` payload when
    the upstream said it is terminal (a terminal task's result answers at once). (changed, settled): settled
    means the payload ended the task, and the result pump has nothing left to do."""
    changed = merge(record, task, now_ms)
    if payload is None or record.terminal:
        return changed, False
    settle(record, payload, now_ms)
    return True, True


def cancelled(record: tk.TaskRecord, result: Any, now_ms: int) -> list[Message] | None:
    """The upstream's ``tasks/cancel`` answer applied to the record: None when it is no Task (nothing changes),
    else the refusals of the inputs still outstanding once the task is cancelled (2025 §Task Cancellation)."""
    if not isinstance(result, dict):
        return None
    merge(record, result, now_ms)
    return refusals(record) if record.status == "cancelled" else []

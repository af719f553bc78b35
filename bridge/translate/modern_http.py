"""A 2026-07-28 Streamable HTTP upstream, pure: the headers of a request, the tools' ``Mcp-Param-*`` annotations
learned from ``tools/list``, and what a response (JSON or SSE) answers.

2026-07-28 basic/transports/streamable-http.mdx: every POST carries ``MCP-Protocol-Version`` and the routing
headers mirrored from its body (§Protocol Version Header, the ``Mcp-Method``/``Mcp-Name`` headers), a ``tools/call``
the ``Mcp-Param-*`` headers its tool's ``x-mcp-header`` annotations name; the answer is one JSON body or an SSE
stream whose events are notifications and, last, the response. The shell (``mcp_eras.bridge.upstream.modern``)
sends the requests and reads the bodies.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate import headers as mh
from mcp_eras.bridge.translate.eras import META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, MODERN
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId
from mcp_eras.bridge.translate.modern_upstream import bridge_meta, idless_error, is_response_for, retag_notification, retag_response

ToolHeaders = MutableMapping[str, dict[tuple[str, ...], str]]
"""Tool name -> its ``x-mcp-header`` annotations (argument path -> header name)."""

TRACE_HEADERS = ("traceparent", "tracestate", "baggage")
"""W3C Trace Context (``traceparent``, ``tracestate``) and W3C Baggage fields passed on from the caller."""

IDENTITY_KEYS = (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO)


def forwarded_authorization(authorization: str | None, subject: str | None) -> str | None:
    """The caller's ``Authorization`` header to send upstream: only in the transparent mode (a front that checks no
    token, ``subject`` None). When the front is an OAuth resource server the caller's token was issued for the bridge
    and never goes further (2026-07-28 basic/authorization "Token Passthrough"; RFC 8707 audience binding): the
    upstream's own credential comes from the server's ``upstream_auth``."""
    return authorization if subject is None else None


def request_headers(wire: Message, static: Mapping[str, str], authorization: str | None, trace: Mapping[str, str] | None,
                    tool_headers: Mapping[str, dict[tuple[str, ...], str]]) -> dict[str, str]:
    """The HTTP header fields of one POST carrying ``wire``: the configured ones, the content negotiation, the
    protocol version, the routing headers mirrored from the body, the caller's credentials and trace context, and
    for a ``tools/call`` the ``Mcp-Param-*`` headers its tool's annotations name."""
    headers = {**static, "Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": MODERN}
    headers.update(mh.routing_headers(wire))
    if authorization:
        headers["Authorization"] = authorization
    if trace:
        for key, value in trace.items():
            if key.lower() in TRACE_HEADERS:
                headers[key] = value
    if wire.get("method") == "tools/call":
        params = wire.get("params") or {}
        annotations = tool_headers.get(params.get("name"))
        if annotations:
            headers.update(mh.param_headers(annotations, params.get("arguments")))
    return headers


def learn_tools(tool_headers: ToolHeaders, result: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """Keep the ``x-mcp-header`` annotations of a ``tools/list`` result; returns the result without the tools whose
    annotations are invalid (a client MUST NOT use those tools) and the names of the tools dropped."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return result, []
    kept, dropped = [], []
    for tool in tools:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        annotations = mh.header_param_names(tool)
        if annotations is None:
            dropped.append(tool["name"])
            tool_headers.pop(tool["name"], None)
            continue
        tool_headers[tool["name"]] = annotations
        kept.append(tool)
    if len(kept) == len(tools):
        return result, dropped
    return {**result, "tools": kept}, dropped


def listing_meta(params: Mapping[str, Any], bridge_info: dict[str, str]) -> dict[str, Any]:
    """The ``_meta`` of a ``tools/list`` the bridge makes for itself: the caller's identity but none of its
    request-scoped keys (or the bridge's own identity when the caller sent none)."""
    return {k: v for k, v in (params.get("_meta") or {}).items() if k in IDENTITY_KEYS} or bridge_meta(bridge_info)


def header_mismatch(resp: Message) -> bool:
    """The upstream refused the routing headers (-32020: our tool annotations are stale)."""
    error = resp.get("error")
    return isinstance(error, dict) and error.get("code") == jsonrpc.HEADER_MISMATCH


def stale_headers_error(caller_id: RequestId, resp: Message) -> Message:
    """A ``tools/call`` refused for its headers again after a fresh ``tools/list``: the bridge cannot build them."""
    return jsonrpc.error_response(caller_id, jsonrpc.INTERNAL_ERROR, "Upstream rejected the bridge's routing headers", resp["error"])


def is_event_stream(content_type: str) -> bool:
    return content_type.split(";")[0].strip().lower() == "text/event-stream"


def json_answer(body: bytes, status: int, www_authenticate: str | None, wire_id: RequestId, caller_id: RequestId) -> Message:
    """The caller's response from a JSON (or empty) answer: the upstream's response for this request, an error it
    sent without an id, or the error its HTTP status stands for."""
    msg: Any = None
    if body:
        try:
            msg = jsonrpc.loads(body)
        except Exception:  # noqa: BLE001 - a body that is not JSON is judged by its status
            msg = None
    if is_response_for(msg, wire_id):
        return retag_response(msg, wire_id, caller_id)
    idless = idless_error(msg, caller_id)
    if idless is not None:
        return idless
    return jsonrpc.error_response(caller_id, *errors.modern_upstream_status_error(status, www_authenticate))


def sse_message(data: str, wire_id: RequestId, caller_id: RequestId) -> tuple[str, Message] | None:
    """What one SSE event of the answer carries: ``("response", msg)`` for this request's response, ``("note", msg)``
    for a notification (retagged for the caller), None for anything else (2026 servers send no requests; responses
    to other ids are not ours). Raises ``FrameError`` for a malformed frame."""
    msg = jsonrpc.parse_frame(data)
    if jsonrpc.is_response(msg):
        return ("response", msg) if msg.get("id") == wire_id else None
    if jsonrpc.is_notification(msg):
        return "note", retag_notification(msg, wire_id, caller_id)
    return None


def no_response(caller_id: RequestId) -> Message:
    return jsonrpc.error_response(caller_id, jsonrpc.INTERNAL_ERROR, "Upstream closed the response stream without a response")


def timed_out(caller_id: RequestId) -> Message:
    return jsonrpc.error_response(caller_id, jsonrpc.INTERNAL_ERROR, "Upstream request timed out")


def needs_tool_schemas(method: str | None, loaded: bool, params: Mapping[str, Any]) -> bool:
    """Whether a ``tools/call`` needs the tools' annotations listed first: its arguments may have to be mirrored into
    ``Mcp-Param-*`` headers, and no complete ``tools/list`` went by yet."""
    return method == "tools/call" and not loaded and bool(params.get("arguments"))


def complete_listing(params: Mapping[str, Any], result: Mapping[str, Any]) -> bool:
    """A ``tools/list`` that started at the first page and has no next one: every tool's annotations are known."""
    return "cursor" not in params and not result.get("nextCursor")


def server_request_refusal(msg: Message) -> Message:
    """2026 servers MUST NOT send requests: answer one anyway (-32601), so a confused server does not hang."""
    return jsonrpc.error_response(msg["id"], jsonrpc.METHOD_NOT_FOUND, "Method not found")

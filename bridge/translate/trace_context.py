"""Trace context across the eras, pure: W3C ``traceparent``/``tracestate``/``baggage`` read from a request and written
into the request the bridge sends on, and the OpenTelemetry attributes of one relayed call.

Where trace context travels:

* Both eras: in the request's ``params._meta`` under the keys ``traceparent``, ``tracestate`` and ``baggage``. The
  2025-11-25 and 2026-07-28 specifications reserve ``_meta`` for such metadata (basic/index.mdx §_meta: keys without a
  prefix are free to use) and the OpenTelemetry semantic conventions for MCP (semantic-conventions, docs/gen-ai/mcp.md
  §Context propagation) name exactly these keys.
* HTTP: the same fields as headers (W3C Trace Context §3 "traceparent Header", §3.3 "tracestate Header"; W3C Baggage
  §3 "The baggage HTTP Header Format"). When a request carries both, ``_meta`` wins: it is the request's own, the
  headers may belong to a proxy in between.

The formats (W3C Trace Context Level 1 §3.2): ``version-traceid-parentid-flags``, lower-case hex, 2-32-16-2 digits;
version ``ff`` is invalid, an all-zero trace id or parent id is invalid; a higher version is read by its first four
fields. ``tracestate``: at most 32 list members (§3.3.1.1). Baggage: at most 8192 bytes (W3C Baggage §3.3.1).

Nothing here reads a clock, a socket or a random source: the telemetry shell (``mcp_eras.bridge.telemetry``) makes
spans with the OpenTelemetry SDK and hands their ids to ``format_traceparent``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp_eras.bridge.translate.eras import TRACE_META_KEYS, request_meta
from mcp_eras.bridge.translate.jsonrpc import Message

TRACEPARENT, TRACESTATE, BAGGAGE = TRACE_META_KEYS
MAX_TRACESTATE_MEMBERS = 32
MAX_TRACESTATE_BYTES = 512
"""W3C Trace Context §3.3.1.5: a vendor may truncate beyond 512 characters; the bridge drops such a tracestate."""
MAX_BAGGAGE_BYTES = 8192
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class TraceParent:
    """One parsed ``traceparent``: 128-bit trace id, 64-bit parent (span) id, 8 flag bits (bit 0: sampled)."""

    trace_id: int
    span_id: int
    flags: int

    @property
    def sampled(self) -> bool:
        return bool(self.flags & 1)

    def header(self) -> str:
        return format_traceparent(self.trace_id, self.span_id, self.flags)


def _hex(text: str, width: int) -> int | None:
    if len(text) != width or not _HEX.issuperset(text):
        return None
    return int(text, 16)


def parse_traceparent(value: object) -> TraceParent | None:
    """A valid ``traceparent`` (W3C Trace Context §3.2.2), else None (then the caller starts a new trace)."""
    if not isinstance(value, str) or len(value) < 55:
        return None
    parts = value.strip().split("-")
    if len(parts) < 4:
        return None
    version = _hex(parts[0], 2)
    if version is None or version == 0xFF or (version == 0 and len(parts) != 4):
        return None
    trace_id, span_id, flags = _hex(parts[1], 32), _hex(parts[2], 16), _hex(parts[3], 2)
    if not trace_id or not span_id or flags is None:  # (0 is invalid for both ids)
        return None
    return TraceParent(trace_id, span_id, flags)


def format_traceparent(trace_id: int, span_id: int, flags: int) -> str:
    return f"00-{trace_id:032x}-{span_id:016x}-{flags & 0xFF:02x}"


def parse_tracestate(value: object) -> list[tuple[str, str]] | None:
    """``tracestate`` as (key, value) pairs in order, None when malformed or over the limits (then it is dropped)."""
    if not isinstance(value, str) or len(value) > MAX_TRACESTATE_BYTES:
        return None
    members: list[tuple[str, str]] = []
    for member in value.split(","):
        member = member.strip()
        if not member:
            continue  # (§3.3.1.1: empty list members are allowed and ignored)
        key, sep, val = member.partition("=")
        if not sep or not key or not val or " " in key or any(ord(c) < 0x20 or ord(c) > 0x7E for c in val):
            return None
        members.append((key, val))
    return members if len(members) <= MAX_TRACESTATE_MEMBERS else None


def valid_baggage(value: object) -> bool:
    """A ``baggage`` value the bridge passes on: a string of printable ASCII within 8192 bytes (W3C Baggage §3)."""
    return isinstance(value, str) and len(value) <= MAX_BAGGAGE_BYTES and all(0x20 <= ord(c) <= 0x7E for c in value)


def _clean(fields: dict[str, Any]) -> dict[str, str]:
    """Only the valid fields; none at all without a valid ``traceparent`` (tracestate belongs to it, §3.3)."""
    if parse_traceparent(fields.get(TRACEPARENT)) is None:
        return {}
    out = {TRACEPARENT: str(fields[TRACEPARENT]).strip()}
    if parse_tracestate(fields.get(TRACESTATE)) is not None:
        out[TRACESTATE] = fields[TRACESTATE]
    if valid_baggage(fields.get(BAGGAGE)):
        out[BAGGAGE] = fields[BAGGAGE]
    return out


def extract(request: Message, headers: dict[str, str] | None = None) -> dict[str, str]:
    """The valid trace fields of an incoming request: its ``params._meta`` ones, else its HTTP headers' ones."""
    meta = request_meta(request)
    if meta:
        found = _clean(meta)
        if found:
            return found
    return _clean(headers) if headers else {}


def header_fields(request: Message) -> dict[str, str] | None:
    """The trace fields of a request's ``_meta`` as HTTP headers for the same request (a 2025 server on Streamable
    HTTP reads them there as well), None when it has none: one dict lookup for an untraced request."""
    meta = request_meta(request)
    if not meta or TRACEPARENT not in meta:
        return None
    return _clean(meta) or None


def inject(request: Message, fields: dict[str, str]) -> Message:
    """``request`` with ``fields`` as its ``params._meta`` trace keys (both eras carry them there; any the request had
    are replaced, a field absent from ``fields`` is removed). A new dict down to ``_meta``; the rest is shared."""
    params = request.get("params")
    params = dict(params) if isinstance(params, dict) else {}
    meta = params.get("_meta")
    meta = {k: v for k, v in meta.items() if k not in TRACE_META_KEYS} if isinstance(meta, dict) else {}
    meta.update(fields)
    params["_meta"] = meta
    return {**request, "params": params}


def onto_client_requests(requests: list[Message], call: Message) -> None:
    """Give the server->client requests the bridge sends a 2025 client during ``call`` (its sampling, elicitation and
    roots requests) the call's trace context in their ``_meta``, so the client sees them in the same trace. The
    requests are the bridge's own, new dicts: changed in place."""
    fields = extract(call)
    if not fields:
        return
    for request in requests:
        params = request.get("params")
        params = request["params"] = dict(params) if isinstance(params, dict) else {}
        meta = params.get("_meta")
        params["_meta"] = {**(meta if isinstance(meta, dict) else {}), **fields}


def child_fields(parent: dict[str, str], trace_id: int, span_id: int, flags: int) -> dict[str, str]:
    """The fields to send on from a span (``trace_id``, ``span_id``, ``flags``) continuing ``parent``: its own
    ``traceparent``, the parent's ``tracestate`` and ``baggage`` unchanged (§3.3: a vendor that adds nothing keeps it)."""
    out = {TRACEPARENT: format_traceparent(trace_id, span_id, flags)}
    for key in (TRACESTATE, BAGGAGE):
        if key in parent:
            out[key] = parent[key]
    return out


# --- attributes (OpenTelemetry semantic conventions for MCP, docs/gen-ai/mcp.md) ---------------------------------

OPERATION_NAMES = {"tools/call": "execute_tool"}
"""``gen_ai.operation.name`` where the GenAI conventions name the operation (gen-ai-spans.md §Execute tool)."""


def target_of(request: Message) -> tuple[str | None, str | None, str | None]:
    """(tool name, prompt name, resource URI) the request is about, each None when not applicable."""
    params = request.get("params")
    if not isinstance(params, dict):
        return None, None, None
    method = request.get("method")
    name = params.get("name") if isinstance(params.get("name"), str) else None
    uri = params.get("uri") if isinstance(params.get("uri"), str) else None
    return (name if method == "tools/call" else None, name if method == "prompts/get" else None,
            uri if method in ("resources/read", "resources/subscribe", "resources/unsubscribe") else None)


def span_name(request: Message) -> str:
    """``{mcp.method.name} {target}`` with the tool or prompt name as target, else the method alone (docs/gen-ai/mcp.md
    §Spans: resource URIs stay out of the name, they are unbounded)."""
    tool, prompt, _uri = target_of(request)
    return span_name_of(request.get("method"), tool, prompt)


def span_name_of(method: object, tool: str | None, prompt: str | None) -> str:
    """``span_name`` from the request's method and target."""
    target = tool or prompt
    name = str(method or "unknown")
    return f"{name} {target}" if target else name


def error_type(response: Message | None, failure: str | None = None) -> str | None:
    """``error.type``: the failure's name, the JSON-RPC error code as a string, ``tool_error`` for a tool result with
    ``isError``, None on success (semantic-conventions docs/gen-ai/mcp.md §Client and §Server, note [1] of
    ``error.type``; ``_OTHER`` for an error without a code, the registry's fallback value)."""
    if failure is not None:
        return failure
    if response is None:
        return None
    err = response.get("error")
    if isinstance(err, dict):
        code = err.get("code")
        return str(code) if isinstance(code, int) and not isinstance(code, bool) else "_OTHER"
    result = response.get("result")
    if isinstance(result, dict) and result.get("isError") is True:
        return "tool_error"
    return None


def exception_type(kind: type[BaseException]) -> str:
    """``error.type`` of a call that raised: the exception's canonical class name, module-qualified except for a
    built-in (semantic-conventions docs/registry/attributes/error.md: "its canonical class name identifying the type
    within the artifact"; e.g. ``TimeoutError``, ``httpx.ConnectError``)."""
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


MAX_STATUS_DESCRIPTION = 256
"""A span status description (the JSON-RPC error message) is cut here: it comes from the upstream."""


def error_message(response: Message | None) -> str | None:
    """The span status description of a failed call: the JSON-RPC error's ``message`` (docs/gen-ai/mcp.md §Client and
    §Server: "The status description SHOULD match the JSONRPCError.message"), None without one."""
    err = response.get("error") if response is not None else None
    message = err.get("message") if isinstance(err, dict) else None
    return message[:MAX_STATUS_DESCRIPTION] if isinstance(message, str) and message else None


def front_attributes(transport: str | None) -> dict[str, Any]:
    """Network attributes of the bridge's server spans: its front is HTTP over TCP (``tcp``) or stdio (``pipe``)
    (docs/gen-ai/mcp.md §Server: ``network.transport`` SHOULD be ``tcp`` for HTTP and ``pipe`` for stdio;
    ``network.protocol.name`` lower-case ``http`` when HTTP is used)."""
    if transport == "tcp":
        return {"network.transport": "tcp", "network.protocol.name": "http"}
    return {"network.transport": transport} if transport else {}


_DEFAULT_PORTS = {"http": 80, "https": 443}


def endpoint_attributes(url: str | None, known: bool = True) -> dict[str, Any]:
    """Network attributes of the bridge's client spans, of the upstream it calls: for an HTTP server
    ``network.protocol.name`` ``http``, ``network.transport`` ``tcp``, ``server.address`` (the URL's host, no name
    lookup) and ``server.port`` (explicit or the scheme's); for a stdio child ``network.transport`` ``pipe``; nothing
    when the upstream is not known (``known`` False). docs/gen-ai/mcp.md §Client, notes [10]-[12]."""
    if not known:
        return {}
    if not url:
        return {"network.transport": "pipe"}
    out: dict[str, Any] = {"network.protocol.name": "http", "network.transport": "tcp"}
    parts = urlsplit(url)
    if parts.hostname:
        out["server.address"] = parts.hostname
        try:
            port = parts.port if parts.port is not None else _DEFAULT_PORTS.get(parts.scheme.lower())
        except ValueError:  # (a malformed port: the address alone)
            port = None
        if port is not None:
            out["server.port"] = port
    return out


def bounded_attributes(method: str, tool: str | None, prompt: str | None, protocol_version: str, client_era: str,
                       upstream_era: str, server: str | None = None) -> dict[str, Any]:
    """The attributes of a relayed request that are the same for every call of one (method, target, eras, server):
    what a span starts with (samplers may read them) and what the duration metrics carry. ``protocol_version``: the
    client's era on the server span, the upstream's on the client span."""
    attrs: dict[str, Any] = {"mcp.method.name": method, "mcp.protocol.version": protocol_version,
                             "mcp_eras.client.era": client_era, "mcp_eras.upstream.era": upstream_era,
                             "mcp_eras.direction": f"{client_era}->{upstream_era}"}
    optional = (("gen_ai.tool.name", tool), ("gen_ai.prompt.name", prompt),
                ("gen_ai.operation.name", OPERATION_NAMES.get(method)), ("mcp_eras.server", server))
    attrs.update((key, value) for key, value in optional if value)
    return attrs


def call_attributes(request: Message, uri: str | None = None, session_id: str | None = None,
                    with_arguments: bool = False) -> dict[str, Any]:
    """The attributes particular to one call (only for a span that records): its JSON-RPC id, resource URI, session
    id (``mcp.session.id``, docs/gen-ai/mcp.md note [8]: "When the MCP request or notification is part of a session"),
    whether it is a round's retry, and its arguments only when ``with_arguments``."""
    attrs: dict[str, Any] = {}
    rid = request.get("id")
    if isinstance(rid, (str, int)) and not isinstance(rid, bool):
        attrs["jsonrpc.request.id"] = str(rid)
    if uri:
        attrs["mcp.resource.uri"] = uri
    if session_id:
        attrs["mcp.session.id"] = session_id
    params = request.get("params")
    if isinstance(params, dict) and ("inputResponses" in params or "requestState" in params):
        attrs["mcp_eras.mrtr.retry"] = True
    if with_arguments and isinstance(params, dict) and isinstance(params.get("arguments"), dict):
        attrs["gen_ai.tool.call.arguments"] = _compact(params["arguments"])
    return attrs


def request_attributes(request: Message, client_era: str, upstream_era: str, transport: str | None = None,
                       session_id: str | None = None, server: str | None = None,
                       with_arguments: bool = False) -> dict[str, Any]:
    """Span attributes of one relayed request as the bridge serves it (``bounded_attributes``, ``call_attributes``
    and ``network.transport``), never its arguments (unless ``with_arguments``), results or tokens."""
    method = str(request.get("method") or "unknown")
    tool, prompt, uri = target_of(request)
    attrs = bounded_attributes(method, tool, prompt, client_era, client_era, upstream_era, server)
    if transport:
        attrs["network.transport"] = transport
    attrs.update(call_attributes(request, uri, session_id, with_arguments))
    return attrs


def _compact(value: Any, limit: int = 4096) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def response_attributes(response: Message | None, failure: str | None = None) -> dict[str, Any]:
    """What the answer adds: ``error.type``, ``rpc.response.status_code`` for a JSON-RPC error, the input requests of
    an ``input_required`` round (``mcp_eras.input.methods``, their methods only)."""
    attrs: dict[str, Any] = {}
    kind = error_type(response, failure)
    if kind is not None:
        attrs["error.type"] = kind
    if response is None:
        return attrs
    code = status_code(response)
    if code is not None:
        attrs["rpc.response.status_code"] = code
    methods = input_methods(response)
    if methods:
        attrs["mcp_eras.input.methods"] = methods
    return attrs


def input_methods(response: Message) -> list[str]:
    """The methods an ``input_required`` result asks the client for (2026-07-28 basic/mrtr §Input required), sorted."""
    result = response.get("result")
    if not isinstance(result, dict) or result.get("resultType") != "input_required":
        return []
    requests = result.get("inputRequests")
    if not isinstance(requests, dict):
        return []
    return sorted({str(r.get("method")) for r in requests.values() if isinstance(r, dict) and r.get("method")})


def created_task_id(response: Message) -> str | None:
    """The task a response hands out (``resultType: "task"`` of the tasks extension, or a 2025 ``CreateTaskResult``)."""
    result = response.get("result")
    if not isinstance(result, dict):
        return None
    task = result.get("task") if isinstance(result.get("task"), dict) else result
    task_id = task.get("taskId") if result.get("resultType") == "task" or "task" in result else None
    return task_id if isinstance(task_id, str) else None


def polled_task_id(request: Message) -> str | None:
    """``params.taskId`` of a ``tasks/*`` request, else None."""
    if not str(request.get("method") or "").startswith("tasks/"):
        return None
    params = request.get("params")
    task_id = params.get("taskId") if isinstance(params, dict) else None
    return task_id if isinstance(task_id, str) else None


METRIC_KEYS = ("mcp.method.name", "gen_ai.tool.name", "gen_ai.prompt.name", "mcp.protocol.version", "network.transport",
               "network.protocol.name", "server.address", "server.port", "gen_ai.operation.name", "mcp_eras.client.era",
               "mcp_eras.upstream.era", "mcp_eras.server")
"""The span attributes the duration metrics keep (docs/gen-ai/mcp.md §Metrics): bounded ones only, no ids, no URIs."""


def metric_attributes(span_attrs: dict[str, Any], error: str | None, status_code: str | None = None) -> dict[str, Any]:
    """The attributes of ``mcp.server.operation.duration`` / ``mcp.client.operation.duration``: the bounded ones of
    the span (``METRIC_KEYS``), ``error.type`` of a failure and ``rpc.response.status_code`` of a JSON-RPC error
    (conditionally required on both metrics, docs/gen-ai/mcp.md §Metrics)."""
    out = {k: span_attrs[k] for k in METRIC_KEYS if k in span_attrs}
    if error is not None:
        out["error.type"] = error
    if status_code is not None:
        out["rpc.response.status_code"] = status_code
    return out


def status_code(response: Message | None) -> str | None:
    """``rpc.response.status_code``: the JSON-RPC error code of the answer as a string, None without one."""
    err = response.get("error") if response is not None else None
    code = err.get("code") if isinstance(err, dict) else None
    return str(code) if isinstance(code, int) and not isinstance(code, bool) else None

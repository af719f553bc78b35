"""Direction A, pure: canonical 2026-07-28 frames <-> the 2025-era traffic a legacy server understands.

The bridge here is a *modern server* toward its client and a *legacy client* toward the upstream.
Every function takes and returns plain dicts; no I/O, no clocks.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

from bridge import eras
from bridge.eras import (
    CACHEABLE_METHODS,
    LOG_LEVEL_RANK,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    META_SUBSCRIPTION_ID,
)
from bridge.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND_2025,
    Message,
)

# ---------------------------------------------------------------------------------------------
# Capabilities and the handshake
# ---------------------------------------------------------------------------------------------


def client_capabilities_to_legacy(caps: dict[str, Any] | None) -> dict[str, Any]:
    """Per-request 2026 ClientCapabilities -> the ``initialize.capabilities`` of an upstream session.

    ``roots`` becomes ``{}`` (the bridge never emits roots/list_changed), ``extensions`` has no 2025
    meaning, and client-hosted ``tasks`` cannot be expressed by a 2026 client.
    """
    caps = caps or {}
    out: dict[str, Any] = {}
    for key in ("experimental", "sampling", "elicitation"):
        if isinstance(caps.get(key), dict):
            out[key] = copy.deepcopy(caps[key])
    if isinstance(caps.get("roots"), dict):
        out["roots"] = {}
    return out


def capabilities_key(caps: dict[str, Any] | None) -> str:
    """A canonical string for pooling: sessions differ exactly when the legacy caps differ."""
    return orjson.dumps(client_capabilities_to_legacy(caps), option=orjson.OPT_SORT_KEYS).decode()


def initialize_params(caps: dict[str, Any] | None, client_info: dict[str, Any], version: str = eras.LEGACY) -> Message:
    return {
        "protocolVersion": version,
        "capabilities": client_capabilities_to_legacy(caps),
        "clientInfo": client_info,
    }


def server_capabilities_to_modern(caps: dict[str, Any] | None) -> dict[str, Any]:
    """InitializeResult.capabilities -> DiscoverResult.capabilities (tasks are not translated: dropped)."""
    caps = caps or {}
    out: dict[str, Any] = {}
    for key in ("experimental", "logging", "completions", "prompts", "resources", "tools"):
        if isinstance(caps.get(key), dict):
            out[key] = copy.deepcopy(caps[key])
    return out


def discover_result(
    init_result: Message,
    *,
    supported_versions: list[str],
    ttl_ms: int,
    cache_scope: str,
    server_info: dict[str, Any] | None = None,
) -> Message:
    """Synthesize a 2026 DiscoverResult from an upstream InitializeResult."""
    result: Message = {
        "resultType": "complete",
        "supportedVersions": list(supported_versions),
        "capabilities": server_capabilities_to_modern(init_result.get("capabilities")),
        "ttlMs": ttl_ms,
        "cacheScope": cache_scope,
    }
    if isinstance(init_result.get("instructions"), str):
        result["instructions"] = init_result["instructions"]
    info = server_info if server_info is not None else init_result.get("serverInfo")
    if isinstance(info, dict):
        result["_meta"] = {META_SERVER_INFO: info}
    return result


# ---------------------------------------------------------------------------------------------
# Requests: canonical -> legacy
# ---------------------------------------------------------------------------------------------


def legacy_params(params: dict[str, Any] | None, progress_token: str | int | None = None) -> dict[str, Any] | None:
    """Strip the 2026 envelope from request params.

    Removes the per-request ``_meta`` keys the session already carries, the MRTR fields the bridge
    consumes, and replaces ``progressToken`` with the bridge's own (or drops it). Trace context and
    vendor ``_meta`` keys are kept.
    """
    if params is None:
        return None
    out = {k: v for k, v in params.items() if k not in ("_meta", "inputResponses", "requestState", "task")}
    meta = params.get("_meta")
    new_meta: dict[str, Any] = {}
    if isinstance(meta, dict):
        for key, value in meta.items():
            if key in eras.MODERN_REQUEST_META_KEYS or key == "progressToken":
                continue
            new_meta[key] = value
    if progress_token is not None:
        new_meta["progressToken"] = progress_token
    if new_meta:
        out["_meta"] = new_meta
    return out


def to_legacy_request(request: Message, upstream_id: int, progress_token: str | int | None = None) -> Message:
    msg: Message = {"jsonrpc": "2.0", "id": upstream_id, "method": request["method"]}
    params = legacy_params(request.get("params"), progress_token)
    if params is not None:
        msg["params"] = params
    return msg


def client_progress_token(request: Message) -> str | int | None:
    meta = eras.request_meta(request)
    if meta is None:
        return None
    token = meta.get("progressToken")
    return token if isinstance(token, (str, int)) and not isinstance(token, bool) else None


def client_log_level(request: Message) -> str | None:
    meta = eras.request_meta(request)
    level = meta.get(META_LOG_LEVEL) if meta else None
    return level if level in LOG_LEVEL_RANK else None


def client_capabilities(request: Message) -> dict[str, Any]:
    meta = eras.request_meta(request) or {}
    caps = meta.get(META_CLIENT_CAPABILITIES)
    return caps if isinstance(caps, dict) else {}


def client_info(request: Message) -> dict[str, Any] | None:
    meta = eras.request_meta(request) or {}
    info = meta.get(META_CLIENT_INFO)
    return info if isinstance(info, dict) and isinstance(info.get("name"), str) else None


def protocol_version(request: Message) -> str | None:
    meta = eras.request_meta(request) or {}
    version = meta.get(META_PROTOCOL_VERSION)
    return version if isinstance(version, str) else None


# ---------------------------------------------------------------------------------------------
# Results and errors: legacy -> canonical
# ---------------------------------------------------------------------------------------------


def to_modern_result(
    method: str,
    result: Any,
    *,
    server_info: dict[str, Any] | None,
    ttl_ms: int,
    cache_scope: str,
    cacheable: bool = True,
) -> Message:
    """A legacy result made canonical: ``resultType``, cache hints, serverInfo; everything else untouched."""
    out: Message = dict(result) if isinstance(result, dict) else {}
    out["resultType"] = "complete"
    if method in CACHEABLE_METHODS and cacheable:
        out.setdefault("ttlMs", ttl_ms)
        out.setdefault("cacheScope", cache_scope)
    if method == "tools/list" and isinstance(out.get("tools"), list):
        out["tools"] = [_modern_tool(t) for t in out["tools"]]
    if server_info is not None:
        meta = dict(out["_meta"]) if isinstance(out.get("_meta"), dict) else {}
        meta[META_SERVER_INFO] = server_info
        out["_meta"] = meta
    return out


def _modern_tool(tool: Any) -> Any:
    if isinstance(tool, dict) and "execution" in tool:
        tool = {k: v for k, v in tool.items() if k != "execution"}
    return tool


def to_modern_error(error: Any, method: str | None = None, params: Any = None) -> dict[str, Any]:
    """Renumber a legacy error for a 2026 client (spec-delta 1.6).

    ``method``/``params`` of the failed request let one SDK quirk be repaired: FastMCP 1.x answers an
    unknown resource with code 0 "Unknown resource: <uri>" instead of -32002; a 2026 client expects
    -32602 with ``data.uri`` either way.
    """
    if not isinstance(error, dict) or not isinstance(error.get("code"), int):
        return {"code": INTERNAL_ERROR, "message": "Upstream sent a malformed error", "data": error}
    code = error["code"]
    uri = params.get("uri") if isinstance(params, dict) else None
    if method == "resources/read" and code == 0 and str(error.get("message", "")).startswith("Unknown resource") and uri:
        return {"code": INVALID_PARAMS, "message": "Resource not found", "data": {"uri": uri}}
    if code == RESOURCE_NOT_FOUND_2025:
        out = {"code": INVALID_PARAMS, "message": error.get("message") or "Resource not found"}
        if "data" in error:
            out["data"] = error["data"]
        return out
    if -32099 <= code <= -32020 and code not in (-32020, -32021, -32022):
        # Reserved to the spec in 2026 (e.g. -32042 URL elicitation required): never emit it.
        return {"code": INTERNAL_ERROR, "message": error.get("message") or "Upstream error", "data": {"upstreamError": error}}
    return error


# ---------------------------------------------------------------------------------------------
# Notifications
# ---------------------------------------------------------------------------------------------


def log_passes(message_level: Any, requested: str | None) -> bool:
    """Whether a ``notifications/message`` at ``message_level`` may reach a request that asked for ``requested``."""
    if requested is None:
        return False
    rank = LOG_LEVEL_RANK.get(message_level) if isinstance(message_level, str) else None
    return rank is not None and rank >= LOG_LEVEL_RANK[requested]


def progress_to_client(notification: Message, client_token: str | int) -> Message:
    params = dict(notification.get("params") or {})
    params["progressToken"] = client_token
    return {"jsonrpc": "2.0", "method": "notifications/progress", "params": params}


def strip_notification_meta(notification: Message) -> Message:
    """Legacy request-scoped notifications carry no 2026-only ``_meta``; copy and drop related-task."""
    params = dict(notification.get("params") or {})
    meta = params.get("_meta")
    if isinstance(meta, dict) and eras.META_RELATED_TASK in meta:
        meta = {k: v for k, v in meta.items() if k != eras.META_RELATED_TASK}
        if meta:
            params["_meta"] = meta
        else:
            params.pop("_meta")
    return {"jsonrpc": "2.0", "method": notification["method"], "params": params}


# ---------------------------------------------------------------------------------------------
# subscriptions/listen
# ---------------------------------------------------------------------------------------------

LIST_CHANGED = {
    "notifications/tools/list_changed": ("toolsListChanged", "tools"),
    "notifications/prompts/list_changed": ("promptsListChanged", "prompts"),
    "notifications/resources/list_changed": ("resourcesListChanged", "resources"),
}


def acknowledged_filter(requested: Any, server_caps: dict[str, Any], subscribed: list[str]) -> dict[str, Any]:
    """The subset of a listen filter the legacy upstream can honour."""
    requested = requested if isinstance(requested, dict) else {}
    out: dict[str, Any] = {}
    for flag, cap in LIST_CHANGED.values():
        if requested.get(flag) is True and isinstance(server_caps.get(cap), dict) and server_caps[cap].get("listChanged"):
            out[flag] = True
    if subscribed:
        out["resourceSubscriptions"] = list(subscribed)
    return out


def requested_resource_uris(requested: Any, server_caps: dict[str, Any]) -> list[str]:
    if not isinstance(requested, dict):
        return []
    uris = requested.get("resourceSubscriptions")
    resources = server_caps.get("resources")
    if not isinstance(uris, list) or not (isinstance(resources, dict) and resources.get("subscribe")):
        return []
    seen: dict[str, None] = {}
    for uri in uris:
        if isinstance(uri, str):
            seen.setdefault(uri, None)
    return list(seen)


def ack_notification(listen_id: Any, acked: dict[str, Any]) -> Message:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": {META_SUBSCRIPTION_ID: listen_id}, "notifications": acked},
    }


def listen_event(notification: Message, listen_id: Any, acked: dict[str, Any]) -> Message | None:
    """Tag an upstream change notification for one listener, or None when its filter excludes it."""
    method = notification.get("method")
    params = notification.get("params") if isinstance(notification.get("params"), dict) else {}
    if method in LIST_CHANGED:
        if not acked.get(LIST_CHANGED[method][0]):
            return None
        out_params: dict[str, Any] = {}
    elif method == "notifications/resources/updated":
        uri = params.get("uri")
        subs = acked.get("resourceSubscriptions") or []
        if not isinstance(uri, str) or not any(uri == s or uri.startswith(s.rstrip("/") + "/") for s in subs):
            return None
        out_params = {"uri": uri}
        if "title" in params:
            out_params["title"] = params["title"]
    else:
        return None
    out_params["_meta"] = {META_SUBSCRIPTION_ID: listen_id}
    return {"jsonrpc": "2.0", "method": method, "params": out_params}


def listen_closed_result(listen_id: Any) -> Message:
    return {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: listen_id}}


# ---------------------------------------------------------------------------------------------
# Server-initiated requests (MRTR, direction A)
# ---------------------------------------------------------------------------------------------


def input_request(method: str, params: Any) -> tuple[dict[str, Any], str | None]:
    """A legacy server->client request as a 2026 ``inputRequests`` entry; also returns its elicitationId."""
    params = dict(params) if isinstance(params, dict) else {}
    elicitation_id = params.pop("elicitationId", None) if method == "elicitation/create" else None
    params.pop("_meta", None)
    params.pop("task", None)
    entry: dict[str, Any] = {"method": method}
    if method != "roots/list":
        entry["params"] = params
    return entry, elicitation_id if isinstance(elicitation_id, str) else None


def required_capability(method: str, params: Any) -> dict[str, Any] | None:
    """The ClientCapabilities a 2026 client must have declared for the server to ask this input."""
    params = params if isinstance(params, dict) else {}
    if method == "roots/list":
        return {"roots": {}}
    if method == "sampling/createMessage":
        need: dict[str, Any] = {}
        if params.get("tools") is not None or params.get("toolChoice") is not None:
            need["tools"] = {}
        if params.get("includeContext") in ("thisServer", "allServers"):
            need["context"] = {}
        return {"sampling": need}
    if method == "elicitation/create":
        mode = params.get("mode", "form")
        return {"elicitation": {mode: {}}}
    return None


def has_capability(declared: dict[str, Any], required: dict[str, Any]) -> bool:
    for key, sub in required.items():
        have = declared.get(key)
        if not isinstance(have, dict):
            return False
        if key == "elicitation":
            # `{}` means form only (2025-11-25 client/elicitation).
            for mode in sub:
                if mode == "form" and not have:
                    continue
                if mode not in have:
                    return False
        else:
            for sub_key in sub:
                if sub_key not in have:
                    return False
    return True


def input_response_to_legacy(method: str, response: Any) -> Any:
    """An ``inputResponses`` value as the result of the upstream's server->client request."""
    if not isinstance(response, dict):
        return response
    return {k: v for k, v in response.items() if k != "resultType"}


def input_refusal(method: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """How the bridge answers an upstream input request nobody will answer: (result, error)."""
    if method == "elicitation/create":
        return {"action": "cancel"}, None
    if method == "sampling/createMessage":
        return None, {"code": -1, "message": "User rejected sampling request"}
    if method == "roots/list":
        return None, {"code": INTERNAL_ERROR, "message": "No roots available"}
    return None, {"code": -32601, "message": f"Method not found: {method}"}


def input_required_result(input_requests: dict[str, Any], request_state: str, server_info: dict[str, Any] | None) -> Message:
    result: Message = {"resultType": "input_required", "inputRequests": input_requests, "requestState": request_state}
    if server_info is not None:
        result["_meta"] = {META_SERVER_INFO: server_info}
    return result


def request_digest(request: Message) -> str:
    """Digest of what identifies a request across MRTR retries (method + salient params)."""
    import hashlib

    params = request.get("params") if isinstance(request.get("params"), dict) else {}
    method = request.get("method")
    if method == "resources/read":
        salient: Any = {"uri": params.get("uri")}
    else:
        salient = {"name": params.get("name"), "arguments": params.get("arguments") or {}}
    blob = orjson.dumps({"m": method, "p": salient}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()

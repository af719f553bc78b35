"""Direction A, pure: canonical 2026-07-28 frames <-> the 2025-era traffic a legacy server understands.

The bridge here is a *modern server* toward its client and a *legacy client* toward the upstream.
Every function takes and returns plain dicts; no I/O, no clocks.
"""

from __future__ import annotations

import copy
import hashlib
from typing import Any

import orjson

from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate.eras import (
    CACHEABLE_METHODS,
    LOG_LEVEL_RANK,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
)
from mcp_eras.bridge.translate.jsonrpc import (
    Message,
)

# ---------------------------------------------------------------------------------------------
# Capabilities and the handshake
# ---------------------------------------------------------------------------------------------


def client_capabilities_to_legacy(caps: dict[str, Any] | None) -> dict[str, Any]:
    """Per-request 2026 ClientCapabilities -> the ``initialize.capabilities`` of an upstream session.

    ``roots`` becomes ``{"listChanged": true}``: the bridge passes a 2025 client's
    ``notifications/roots/list_changed`` to the sessions of its identity (``LegacyUpstream.roots_changed``); a 2026
    client has no such notification, its roots are asked again per call. ``extensions`` has no 2025 meaning, and
    client-hosted ``tasks`` cannot be expressed by a 2026 client.
    """
    caps = caps or {}
    out: dict[str, Any] = {}
    for key in ("experimental", "sampling", "elicitation"):
        if isinstance(caps.get(key), dict):
            out[key] = copy.deepcopy(caps[key])
    if isinstance(caps.get("roots"), dict):
        out["roots"] = {"listChanged": True}
    return out


def capabilities_key(caps: dict[str, Any] | None) -> str:
    """A canonical string for pooling: sessions differ exactly when the legacy caps differ."""
    if not caps:
        return "{}"  # what the mapping of no capabilities gives, without making it (most callers declare none)
    return orjson.dumps(client_capabilities_to_legacy(caps), option=orjson.OPT_SORT_KEYS).decode()


def initialize_params(caps: dict[str, Any] | None, client_info: dict[str, Any], version: str = eras.LEGACY) -> Message:
    return {
        "protocolVersion": version,
        "capabilities": client_capabilities_to_legacy(caps),
        "clientInfo": client_info,
    }


def accepted_initialize(result: Any) -> tuple[str, dict[str, Any], dict[str, Any] | None] | None:
    """(negotiated version, server capabilities, serverInfo) of an ``InitializeResult`` the bridge can serve on;
    None when it is no result or names a revision the bridge does not speak (2025-11-25 basic/lifecycle.mdx
    §Version Negotiation: the client should then disconnect)."""
    if not isinstance(result, dict) or result.get("protocolVersion") not in eras.LEGACY_VERSIONS:
        return None
    caps = result.get("capabilities")
    info = result.get("serverInfo")
    return result["protocolVersion"], caps if isinstance(caps, dict) else {}, info if isinstance(info, dict) else None


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
    out = dict(params)
    meta = out.pop("_meta", None)
    if not _CONSUMED_PARAMS.isdisjoint(out):
        for key in _CONSUMED_PARAMS:
            out.pop(key, None)
    new_meta: dict[str, Any] = {}
    if isinstance(meta, dict) and not _SESSION_META_KEYS.issuperset(meta):  # (most carry only what the session has)
        new_meta = {key: value for key, value in meta.items() if key not in _SESSION_META_KEYS}
    if progress_token is not None:
        new_meta["progressToken"] = progress_token
    if new_meta:
        out["_meta"] = new_meta
    return out


_CONSUMED_PARAMS = frozenset({"inputResponses", "requestState", "task"})
"""2026 request fields the bridge consumes (MRTR's, the tasks extension's): never sent to a 2025 server."""
_SESSION_META_KEYS = frozenset({*eras.MODERN_REQUEST_META_KEYS, "progressToken"})
"""``_meta`` keys a 2025 session carries once (its initialize) or the bridge replaces (its own progress token)."""


def to_legacy_request(request: Message, upstream_id: int, progress_token: str | int | None = None) -> Message:
    msg: Message = {"jsonrpc": "2.0", "id": upstream_id, "method": request["method"]}
    params = legacy_params(request.get("params"), progress_token)
    if params is not None:
        msg["params"] = params
    return msg


def client_progress_token(request: Message) -> str | int | None:
    return progress_token_in(eras.request_meta(request) or {})


def client_log_level(request: Message) -> str | None:
    return log_level_in(eras.request_meta(request) or {})


def client_capabilities(request: Message) -> dict[str, Any]:
    return capabilities_in(eras.request_meta(request) or {})


def client_info(request: Message) -> dict[str, Any] | None:
    return info_in(eras.request_meta(request) or {})


# The same, from a request's ``_meta`` already looked up (one lookup per request on the call path).

def progress_token_in(meta: dict[str, Any]) -> str | int | None:
    token = meta.get("progressToken")
    return token if isinstance(token, (str, int)) and not isinstance(token, bool) else None


def log_level_in(meta: dict[str, Any]) -> str | None:
    level = meta.get(META_LOG_LEVEL)
    return level if level in LOG_LEVEL_RANK else None


def capabilities_in(meta: dict[str, Any]) -> dict[str, Any]:
    caps = meta.get(META_CLIENT_CAPABILITIES)
    return caps if isinstance(caps, dict) else {}


def info_in(meta: dict[str, Any]) -> dict[str, Any] | None:
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
    # Tools pass unchanged, `execution` included: the 2026-07-28 Tool has no such field but does not
    # forbid other members (schema.json `Tool`, no additionalProperties: false), and a 2025 client behind
    # the canonical form must get its `execution.taskSupport` back (2025-11-25 schema `Tool.execution`).
    if server_info is not None:
        meta = dict(out["_meta"]) if isinstance(out.get("_meta"), dict) else {}
        meta[META_SERVER_INFO] = server_info
        out["_meta"] = meta
    return out


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
# MRTR results (the round rules are in mcp_eras.bridge.translate.legacy_server.mrtr)
# ---------------------------------------------------------------------------------------------


def input_required_result(input_requests: dict[str, Any], request_state: str, server_info: dict[str, Any] | None) -> Message:
    result: Message = {"resultType": "input_required", "inputRequests": input_requests, "requestState": request_state}
    if server_info is not None:
        result["_meta"] = {META_SERVER_INFO: server_info}
    return result


def request_digest(request: Message) -> str:
    """Digest of what identifies a request across MRTR retries (method + salient params).

    2026-07-28 basic/patterns/mrtr.mdx §Server Requirements (Basic Workflow): requestState names the
    originating request, e.g. the method name and a digest of its salient parameters.
    """
    params = request.get("params") if isinstance(request.get("params"), dict) else {}
    method = request.get("method")
    if method == "resources/read":
        salient: Any = {"uri": params.get("uri")}
    else:
        salient = {"name": params.get("name"), "arguments": params.get("arguments") or {}}
    blob = orjson.dumps({"m": method, "p": salient}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(blob).hexdigest()

"""Direction A front, pure: validating a 2026-07-28 client frame (body and, on HTTP, headers).

Every check raises ``FrameError`` carrying the JSON-RPC code and the HTTP status the 2026
Streamable HTTP transport pins (400 + -32020/-32022/-32602, 404 + -32601).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate import headers as mh
from mcp_eras.bridge.translate.eras import META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION, NAMED_METHODS
from mcp_eras.bridge.translate.jsonrpc import (
    HEADER_MISMATCH,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    FrameError,
    Message,
)

STREAMING_METHODS = frozenset({"subscriptions/listen"})
"""Requests whose answer is a stream of notifications of their own (2026-07-28 basic/patterns/subscriptions.mdx)."""


def answers_once(msg: Message, meta: dict[str, Any] | None = None) -> bool:
    """Whether a 2026 request asked for nothing but its response: no progress token, no log level (notifications
    reach only a request that asked: 2026-07-28 basic/utilities/progress.mdx, server/utilities/logging.mdx), and
    not a stream of its own. Such a request is answered with its response alone. ``meta``: its ``_meta``, when
    already looked up (``validate_request`` returns it)."""
    if msg.get("method") in STREAMING_METHODS:
        return False
    if meta is None:
        meta = eras.request_meta(msg)
    return meta is None or ("progressToken" not in meta and META_LOG_LEVEL not in meta)


def decode_header_value(value: str) -> str:
    try:
        return mh.decode_value(value)
    except (ValueError, UnicodeDecodeError):
        raise FrameError(HEADER_MISMATCH, "Header mismatch: invalid base64 header value") from None


def validate_request(msg: Message, supported_versions: tuple[str, ...] = eras.MODERN_VERSIONS) -> dict[str, Any]:
    """Body checks for a 2026 request (any transport). Returns its ``_meta``."""
    rid = msg.get("id")
    method = msg["method"]
    if method in eras.REMOVED_IN_MODERN:
        raise FrameError(METHOD_NOT_FOUND, f"Method not found: {method} (removed in 2026-07-28)", id=rid, http_status=404)
    if method not in eras.MODERN_CLIENT_METHODS:
        raise FrameError(METHOD_NOT_FOUND, f"Method not found: {method}", id=rid, http_status=404)
    params = msg.get("params")
    if not isinstance(params, dict):
        raise FrameError(INVALID_PARAMS, "Invalid params: params with _meta are required", id=rid)
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        raise FrameError(INVALID_PARAMS, "Invalid params: missing _meta", id=rid)
    version = meta.get(META_PROTOCOL_VERSION)
    if not isinstance(version, str):
        raise FrameError(INVALID_PARAMS, f"Invalid params: missing _meta[{META_PROTOCOL_VERSION!r}]", id=rid)
    if version not in supported_versions:
        raise FrameError(
            UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            {"supported": list(supported_versions), "requested": version},
            id=rid,
        )
    caps = meta.get(META_CLIENT_CAPABILITIES)
    if caps is None:
        raise FrameError(INVALID_PARAMS, f"Invalid params: missing _meta[{META_CLIENT_CAPABILITIES!r}]", id=rid)
    field = malformed_capability(caps) if type(caps) is not dict or caps else None
    if field is not None:  # refused here, before any upstream session is chosen for these capabilities
        raise FrameError(INVALID_PARAMS, f"Invalid params: _meta[{META_CLIENT_CAPABILITIES!r}]{field} must be an object",
                         id=rid)
    info = meta.get(META_CLIENT_INFO)
    if info is not None and not (isinstance(info, dict) and isinstance(info.get("name"), str)):
        raise FrameError(INVALID_PARAMS, f"Invalid params: malformed _meta[{META_CLIENT_INFO!r}]", id=rid)
    level = meta.get(META_LOG_LEVEL)
    if level is not None and level not in eras.LOG_LEVEL_RANK:
        raise FrameError(INVALID_PARAMS, f"Invalid params: unknown log level {level!r}", id=rid)
    if method in NAMED_METHODS and not isinstance(params.get(NAMED_METHODS[method]), str):
        raise FrameError(INVALID_PARAMS, f"Invalid params: {NAMED_METHODS[method]} is required", id=rid)
    if method == "subscriptions/listen" and not isinstance(params.get("notifications"), dict):
        raise FrameError(INVALID_PARAMS, "Invalid params: notifications filter is required", id=rid)
    return meta


CAPABILITY_OBJECTS: dict[str, tuple[str, ...]] = {
    "elicitation": ("form", "url"), "roots": (), "sampling": ("context", "tools"), "experimental": (), "extensions": (),
}
"""The 2026-07-28 schema's ``ClientCapabilities`` (schema/2026-07-28/schema.json ``$defs.ClientCapabilities``): each
known capability is an object, and so are these members of it (``JSONObject``); ``experimental`` and ``extensions``
map names to objects. Other capabilities are allowed (the set is open) and passed on as they are."""

_MAPS = frozenset({"experimental", "extensions"})


def malformed_capability(caps: Any, objects: Mapping[str, tuple[str, ...]] = CAPABILITY_OBJECTS) -> str | None:
    """Where a client's capabilities break the schema's shape: "" (they are not an object) or the first such field as
    ``.name`` / ``.name.member``; None when they keep it. ``objects``: the revision's table (the 2026 one by default)."""
    if not isinstance(caps, dict):
        return ""
    for name, members in objects.items():
        value = caps.get(name)
        if value is None and name not in caps:
            continue
        if not isinstance(value, dict):
            return f".{name}"
        inner = value if name in _MAPS else {m: value[m] for m in members if m in value}
        for member, setting in inner.items():
            if not isinstance(setting, dict):
                return f".{name}.{member}"
    return None


def initialize_refusal(msg: Message, supported_versions: tuple[str, ...] = eras.MODERN_VERSIONS) -> FrameError | None:
    """``initialize`` on a connection serving 2026-07-28 (its first request had the 2026 ``_meta``): refused the way a
    2026 server refuses a revision it does not serve, -32022 naming the versions it does (2026-07-28
    basic/versioning.mdx §Protocol Version Negotiation; §Backward Compatibility with Initialization-Based Versions: a
    dual-era client that gets it retries ``server/discover`` at a named version instead of giving up). None when the
    request names no version (the error's ``data.requested`` is required): then it is a removed method like any other."""
    params = msg.get("params")
    requested = params.get("protocolVersion") if isinstance(params, dict) else None
    if msg.get("method") != "initialize" or not isinstance(requested, str):
        return None
    return FrameError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version: this connection serves 2026-07-28; "
                      "the initialize handshake is not accepted", {"supported": list(supported_versions), "requested": requested},
                      id=msg.get("id"))


def validate_notification(msg: Message) -> None:
    if msg["method"] != "notifications/cancelled":
        # Unknown notifications are ignored (2026-07-28 basic/index.mdx §Notifications); nothing to check.
        return
    params = msg.get("params")
    if not isinstance(params, dict) or not isinstance(params.get("requestId"), (str, int)):
        raise FrameError(INVALID_PARAMS, "Invalid params: notifications/cancelled needs requestId")


def validate_headers(msg: Message, headers: Mapping[str, str]) -> None:
    """2026 Streamable HTTP header/body agreement (MCP-Protocol-Version, Mcp-Method, Mcp-Name):
    2026-07-28 basic/transports/streamable-http.mdx §Request Metadata and §Server Validation."""
    rid = msg.get("id")
    meta = eras.request_meta(msg) or {}
    body_version = meta.get(META_PROTOCOL_VERSION)
    header_version = headers.get("mcp-protocol-version")
    if header_version is None:
        raise FrameError(HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version header is required", id=rid)
    if body_version is not None and header_version != body_version:
        raise FrameError(
            HEADER_MISMATCH,
            f"Header mismatch: MCP-Protocol-Version header {header_version!r} does not match body {body_version!r}",
            id=rid,
        )
    header_method = headers.get("mcp-method")
    if header_method is None:
        raise FrameError(HEADER_MISMATCH, "Header mismatch: Mcp-Method header is required", id=rid)
    if header_method != msg["method"]:
        raise FrameError(
            HEADER_MISMATCH, f"Header mismatch: Mcp-Method header {header_method!r} does not match body {msg['method']!r}", id=rid
        )
    field = NAMED_METHODS.get(msg["method"])
    if field is not None:
        body_name = (msg.get("params") or {}).get(field)
        raw = headers.get("mcp-name")
        if raw is None:
            raise FrameError(HEADER_MISMATCH, "Header mismatch: Mcp-Name header is required", id=rid)
        try:
            header_name = decode_header_value(raw)
        except FrameError as exc:
            exc.id = rid
            raise
        if header_name != body_name:
            raise FrameError(
                HEADER_MISMATCH, f"Header mismatch: Mcp-Name header value {header_name!r} does not match body {body_name!r}", id=rid
            )


def check_param_headers(msg: Message, headers: Mapping[str, str], annotations: dict[tuple[str, ...], str] | None) -> None:
    """``Mcp-Param-*`` mirroring for a ``tools/call`` whose tool annotates arguments with ``x-mcp-header``
    (``annotations`` as computed by ``mirror_headers.header_param_names``)."""
    if msg["method"] != "tools/call" or not annotations:
        return
    rid = msg.get("id")
    args = (msg.get("params") or {}).get("arguments") or {}
    for path, header_name in annotations.items():
        value = mh.lookup(args, path)
        if value is None:
            continue
        raw = headers.get(f"mcp-param-{header_name.lower()}")
        if raw is None:
            raise FrameError(HEADER_MISMATCH, f"Header mismatch: Mcp-Param-{header_name} header is required", id=rid)
        if not _param_equal(value, decode_header_value(raw)):
            raise FrameError(HEADER_MISMATCH, f"Header mismatch: Mcp-Param-{header_name} does not match its argument", id=rid)


def _param_equal(value: Any, header: str) -> bool:
    if isinstance(value, bool):
        return header == ("true" if value else "false")
    if isinstance(value, int):
        try:
            return int(header) == value
        except ValueError:
            return False
    return isinstance(value, str) and value == header


def invalid_request(message: str, rid: Any = None) -> FrameError:
    return FrameError(INVALID_REQUEST, message, id=rid)

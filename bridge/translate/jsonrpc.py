"""JSON-RPC 2.0 framing shared by every transport: parse, classify, serialize, error constructors.

Frames are plain ``dict`` objects end to end. orjson does the byte work (it is on the hot path of
every message the bridge relays); nothing here validates payloads beyond the envelope.
"""

from __future__ import annotations

from typing import Any

import orjson

# JSON-RPC / MCP error codes: defined (with their spec sections) in mcp_eras.bridge.translate.errors, re-exported here.
from mcp_eras.bridge.translate.errors import (  # noqa: F401 - re-exported
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY,
    PARSE_ERROR,
    RESOURCE_NOT_FOUND_2025,
    UNSUPPORTED_PROTOCOL_VERSION,
    URL_ELICITATION_REQUIRED_2025,
    USER_REJECTED,
)

Message = dict[str, Any]
RequestId = str | int


class FrameError(Exception):
    """A frame that cannot be processed; carries the JSON-RPC error to answer with."""

    def __init__(self, code: int, message: str, data: Any = None, *, id: RequestId | None = None, http_status: int = 400):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.id = id
        self.http_status = http_status

    def to_response(self) -> Message:
        return error_response(self.id, self.code, self.message, self.data)


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)


def dumps(msg: Any) -> bytes:
    return orjson.dumps(msg)


MAX_DEPTH = 128
"""Deepest nesting of objects/arrays accepted in a frame. Deeper frames are refused before any work
(they could be parsed but not re-serialized on the way to the peer)."""


_SHORT = 2 * (MAX_DEPTH + 1)
"""Nesting N levels deep takes at least 2N bytes (each level opens and closes): a shorter frame is never too deep."""


def too_deep(data: bytes | str, obj: Any, limit: int = MAX_DEPTH) -> bool:
    raw = data.encode() if isinstance(data, str) else data
    if len(raw) < 2 * (limit + 1) or raw.count(b"{") + raw.count(b"[") <= limit:
        return False  # cannot nest deeper than its number of brackets
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def parse_frame(data: bytes | str) -> Message:
    """Parse one JSON-RPC frame. Raises FrameError for anything that is not a single valid envelope."""
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise FrameError(PARSE_ERROR, f"Parse error: {exc}") from None
    if type(obj) is dict and type(data) is bytes and (len(data) < _SHORT or data.count(b"{") + data.count(b"[") <= MAX_DEPTH):
        check_envelope(obj)  # the usual frame: an object too short to nest too deep (``too_deep``'s first tests)
        return obj
    if isinstance(obj, (dict, list)) and too_deep(data, obj):
        raise FrameError(INVALID_REQUEST, f"Invalid Request: JSON nested deeper than {MAX_DEPTH} levels")
    if isinstance(obj, list):
        raise FrameError(INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not supported by MCP")
    if not isinstance(obj, dict):
        raise FrameError(INVALID_REQUEST, "Invalid Request: a JSON-RPC message must be an object")
    check_envelope(obj)
    return obj


def check_envelope(obj: Message) -> None:
    rid = obj.get("id")
    kind = type(rid)  # (exact types first: what a JSON parser makes; bool, an int subclass, is never an id)
    valid_id = (kind is int or kind is str or (isinstance(rid, (str, int)) and kind is not bool)) and "id" in obj
    if obj.get("jsonrpc") != "2.0":
        raise FrameError(INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"", id=rid if valid_id else None)
    if "method" in obj:
        if not isinstance(obj["method"], str):
            raise FrameError(INVALID_REQUEST, "Invalid Request: method must be a string", id=rid if valid_id else None)
        if "id" in obj and not valid_id:
            raise FrameError(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        params = obj.get("params")
        if params is not None and not isinstance(params, dict):
            raise FrameError(INVALID_PARAMS, "Invalid params: params must be an object", id=rid if valid_id else None)
        return
    if "result" in obj or "error" in obj:
        if not valid_id and not ("error" in obj and rid is None):
            raise FrameError(INVALID_REQUEST, "Invalid Request: response without a valid id")
        return
    raise FrameError(INVALID_REQUEST, "Invalid Request: not a request, notification or response", id=rid if valid_id else None)


def is_request(msg: Message) -> bool:
    return "method" in msg and "id" in msg


def is_notification(msg: Message) -> bool:
    return "method" in msg and "id" not in msg


def is_response(msg: Message) -> bool:
    return "method" not in msg and ("result" in msg or "error" in msg)


def request(id: RequestId, method: str, params: Message | None = None) -> Message:
    msg: Message = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def notification(method: str, params: Message | None = None) -> Message:
    msg: Message = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def result_response(id: RequestId | None, result: Message) -> Message:
    return {"jsonrpc": "2.0", "id": id, "result": result}


def error_response(id: RequestId | None, code: int, message: str, data: Any = None) -> Message:
    """An error response; without ``id`` when the request's id is unknown (unparseable or invalid).

    2026-07-28 basic/index.mdx §Error Responses (and the 2025-11-25 schema's JSONRPCErrorResponse):
    ``id`` is optional but never ``null``.
    """
    err: Message = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    if id is None:
        return {"jsonrpc": "2.0", "error": err}
    return {"jsonrpc": "2.0", "id": id, "error": err}


def upstream_error(id: RequestId | None, why: object) -> Message:
    """The caller's -32603 when the upstream failed its request (unreachable, died, refused to start)."""
    return error_response(id, INTERNAL_ERROR, f"Upstream error: {why}")


def upstream_unavailable(id: RequestId | None, why: object) -> Message:
    """The caller's -32603 when no upstream could serve a session being opened."""
    return error_response(id, INTERNAL_ERROR, f"Upstream unavailable: {why}")


def bridge_failure(id: RequestId | None, exc: BaseException) -> Message:
    """A bug in the bridge as the caller's -32603 (never a hang); only the exception's class is told."""
    return error_response(id, INTERNAL_ERROR, f"Internal error: {exc.__class__.__name__}")

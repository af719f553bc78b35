"""The fronts' decisions about a client frame, pure: which era it belongs to and what the front does with it, before
any session or upstream sees it (the stdio front, and the HTTP front's POST, GET and DELETE).

2025-11-25 basic/transports.mdx §stdio and 2026-07-28 basic/transports/stdio.mdx: newline-delimited JSON-RPC, one
message per line. On stdio the first frame decides the era of the connection (``initialize`` means 2025, a request
with the 2026 ``_meta`` envelope 2026) unless the front's era is pinned. On HTTP every POST is classified on its own:
a session header, the body's envelope, or else the ``MCP-Protocol-Version`` header (2026-07-28
basic/transports/streamable-http.mdx §Protocol Version Header). The shells (``mcp_eras.bridge.front.stdio``,
``legacy_stdio``, ``http``) read and write the bytes and run the requests.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass
from typing import Any

from mcp_eras.bridge.translate import eras, jsonrpc, modern_front
from mcp_eras.bridge.translate import headers as mh
from mcp_eras.bridge.translate.jsonrpc import INVALID_REQUEST, FrameError, Message, RequestId

# --- what a front does with a frame ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Skip:
    """Nothing to do (a blank line, a frame nobody answers)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """Write ``frame`` to the client; ``stop``: then end the connection (its framing is lost)."""

    frame: Message
    stop: bool = False


@dataclass(frozen=True, slots=True)
class Deliver:
    """Hand ``msg`` to the connection's session; ``era``: the first frame chose it (start a session of that era)."""

    msg: Message
    era: str | None = None


@dataclass(frozen=True, slots=True)
class Run:
    """Run the request ``msg`` (concurrently with the others of the connection)."""

    msg: Message


@dataclass(frozen=True, slots=True)
class Cancel:
    """Cancel the request in flight with this id; nothing further is sent for it."""

    request_id: RequestId


SKIP = Skip()


# --- stdio ---------------------------------------------------------------------------------------------


def first_frame_era(msg: Message, front_era: str) -> str:
    """The era of a stdio connection from its first frame (``front_era``: the setting, ``auto`` or pinned)."""
    if front_era != "auto":
        return front_era
    return eras.frame_era(msg) or eras.MODERN


class StdioFront:
    """One stdio connection's framing and era: ``on_line`` for each line read (without a decision about its
    bytes' length: a line over the cap is ``oversized``)."""

    __slots__ = ("front_era", "serves_legacy", "max_line_bytes", "era")

    def __init__(self, front_era: str, serves_legacy: bool, max_line_bytes: int) -> None:
        self.front_era = front_era
        self.serves_legacy = serves_legacy
        self.max_line_bytes = max_line_bytes
        self.era: str | None = None
        """Set by the first frame a session takes."""

    def oversized(self) -> Reply:
        """A line over the cap: the rest of it is unreadable framing, so the connection ends after the error."""
        return Reply(jsonrpc.error_response(None, INVALID_REQUEST, f"Frame exceeds {self.max_line_bytes} bytes"), stop=True)

    def on_line(self, line: bytes) -> Skip | Reply | Deliver:
        line = line.strip()
        if not line:
            return SKIP
        try:
            msg = jsonrpc.parse_frame(line)
        except FrameError as exc:
            return Reply(exc.to_response())
        if self.era is not None:
            return Deliver(msg)
        era = first_frame_era(msg, self.front_era)
        if era == eras.LEGACY and not self.serves_legacy:
            return Reply(jsonrpc.error_response(msg.get("id"), INVALID_REQUEST, "This bridge front serves 2026-07-28 clients only"))
        self.era = era
        return Deliver(msg, era)


def modern_stdio_frame(msg: Message, in_flight: Container[Any]) -> Skip | Reply | Run | Cancel:
    """A 2026-07-28 client's frame on stdio: requests run concurrently, ``notifications/cancelled`` cancels one
    (2026-07-28 basic/patterns/cancellation.mdx), a response is ignored (2026 clients answer no requests)."""
    if jsonrpc.is_notification(msg):
        if msg["method"] == "notifications/cancelled":
            rid = (msg.get("params") or {}).get("requestId")
            if isinstance(rid, (str, int)) and rid in in_flight:
                return Cancel(rid)
        return SKIP
    if jsonrpc.is_response(msg):
        return SKIP
    rid = msg["id"]
    if rid in in_flight:
        return Reply(jsonrpc.error_response(rid, INVALID_REQUEST, f"Invalid Request: id {rid!r} is already in flight"))
    try:
        # A dual-era client whose server/discover timed out falls back to initialize on the same pipe.
        refusal = modern_front.initialize_refusal(msg)
        if refusal is not None:
            raise refusal
        modern_front.validate_request(msg)
    except FrameError as exc:
        return Reply(jsonrpc.error_response(rid, exc.code, exc.message, exc.data))
    return Run(msg)


# --- HTTP ----------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Refuse:
    """Answer the HTTP request with ``status`` and a JSON-RPC error (``headers``: extra response fields)."""

    status: int
    code: int
    message: str
    id: RequestId | None = None
    data: Any = None
    headers: Mapping[str, str] | None = None

    @classmethod
    def of(cls, exc: FrameError, rid: RequestId | None = None) -> Refuse:
        return cls(exc.http_status, exc.code, exc.message, rid, exc.data)


@dataclass(frozen=True, slots=True)
class Accepted:
    """202 Accepted, no body: a notification the front takes and has nothing to answer."""


ACCEPTED = Accepted()


def method_refusal(method: str, serves_legacy: bool) -> Refuse | None:
    """Which HTTP methods the MCP endpoint serves: POST always, GET and DELETE for 2025 sessions (2025-11-25
    basic/transports.mdx §Listening for Messages from the Server, §Session Management); 405 with ``Allow`` else."""
    if method == "POST" or (serves_legacy and method in ("GET", "DELETE")):
        return None
    why = f"{method} (2026-07-28 endpoints accept POST only)" if method in ("GET", "DELETE") else method
    return Refuse(405, INVALID_REQUEST, f"Method Not Allowed: {why}", headers={"Allow": "POST"})


def is_legacy_post(front_era: str, headers: Mapping[str, str], msg: Message) -> bool:
    """Whether a POST belongs to a 2025 session: the front serves only those, it names a session, its body has an
    era, or else its ``MCP-Protocol-Version`` header is not a 2026 one (2025 clients may send none at all)."""
    if front_era == eras.LEGACY or "mcp-session-id" in headers:
        return True
    era = eras.frame_era(msg)
    if era is not None:
        return era == eras.LEGACY
    return headers.get("mcp-protocol-version") not in eras.MODERN_VERSIONS


def legacy_only_refusal(msg: Message) -> Refuse:
    return Refuse(400, INVALID_REQUEST, "Bad Request: this endpoint serves 2025-11-25 sessions only", msg.get("id"))


def modern_post(msg: Message, headers: Mapping[str, str],
                param_headers: Mapping[str, dict[tuple[str, ...], str]]) -> Refuse | Accepted | dict[str, Any]:
    """A 2026-07-28 POST whose body is ``msg``: the refusal, 202 for a notification, or the request's ``_meta`` (the
    request is valid: dispatch it). ``param_headers``: the ``Mcp-Param-*`` annotations learned per tool name."""
    if "method" not in msg:  # a response (the envelope is checked: it is a request, a notification or a response)
        return Refuse(400, INVALID_REQUEST, "Invalid Request: 2026-07-28 clients do not send responses")
    if "id" not in msg:  # a notification
        try:
            modern_front.validate_notification(msg)
        except FrameError as exc:
            return Refuse(exc.http_status, exc.code, exc.message)
        # No client notification has meaning over 2026 HTTP (closing a stream is the cancel):
        # 2026-07-28 basic/transports/streamable-http.mdx §Sending Messages (Note) and §Cancellation.
        return ACCEPTED
    try:
        # Header/body agreement first: a mismatch is -32020 even when the body's version is also unknown.
        modern_front.validate_headers(msg, headers)
        meta = modern_front.validate_request(msg)
        if msg["method"] == "tools/call" and param_headers:
            modern_front.check_param_headers(msg, headers, param_headers.get(msg["params"].get("name")))
    except FrameError as exc:
        return Refuse.of(exc, msg.get("id"))
    return meta


def declared_over(declared: str | None, limit: int) -> bool:
    """Whether a request's ``Content-Length`` announces a body over the cap (refused before it is read)."""
    return declared is not None and declared.isdigit() and int(declared) > limit


def body_too_large(limit: int) -> FrameError:
    """413 Content Too Large (RFC 9110 §15.5.14) with a JSON-RPC error without ``id`` (the body was not read)."""
    return FrameError(INVALID_REQUEST, f"Request body exceeds {limit} bytes", http_status=413)


def learn_param_headers(cache: dict[str, dict[tuple[str, ...], str]], response: Message) -> None:
    """Keep the ``x-mcp-header`` annotations (by tool name) of a ``tools/list`` result the front relays: later
    ``tools/call`` requests' ``Mcp-Param-*`` headers are checked against them (2026-07-28
    basic/transports/streamable-http.mdx); a tool listed without them is forgotten."""
    result = response.get("result")
    tools = result.get("tools") if isinstance(result, dict) else None
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        annotations = mh.header_param_names(tool)
        if annotations:
            cache[tool["name"]] = annotations
        else:
            cache.pop(tool["name"], None)

"""Every JSON-RPC error code and HTTP status the bridge emits or translates, both eras, in one place.

Pure data and small pure functions (no I/O). Each constant and each table row names the public
specification section it comes from (revision, file, section). Two rules shape the code<->code tables
(they are what a translating intermediary owes both sides):

* Translate a code only where the specification maps it for that pairing (2025-era peer <-> 2026-era
  peer): 2026-07-28 ``changelog.mdx`` §Minor changes item 6 (resource not found ``-32002`` -> ``-32602``)
  and 2026-07-28 ``basic/index.mdx`` §Error Codes (codes a 2026 implementation MUST NOT emit).
* Never re-map an error that already is in the receiving era's terms: every code no row matches passes
  through unchanged, with its message and data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# ==============================================================================================
# Codes
# ==============================================================================================

# JSON-RPC 2.0 (both eras): 2026-07-28 basic/index.mdx §Error Codes ("MCP uses the standard JSON-RPC
# 2.0 error codes (-32700, -32600 to -32603)"); 2025-11-25 basic/index.mdx §Error Responses.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# 2025-11-25 only.
RESOURCE_NOT_FOUND_2025 = -32002
"""2025-11-25 server/resources.mdx §Error Handling ("Resource not found: -32002")."""
URL_ELICITATION_REQUIRED_2025 = -32042
"""2025-11-25 client/elicitation.mdx §URL Elicitation Required Error."""
USER_REJECTED = -1
"""2025-11-25 client/sampling.mdx §Error Handling ("User rejected sampling request: -1")."""

# 2026-07-28 only (renumbered from -32001/-32003/-32004: 2026-07-28 changelog.mdx §Minor changes item 12).
HEADER_MISMATCH = -32020
"""2026-07-28 basic/transports/streamable-http.mdx §Server Validation."""
MISSING_CLIENT_CAPABILITY = -32021
"""2026-07-28 basic/index.mdx §Error Codes; schema.mdx §MissingRequiredClientCapabilityError."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
"""2026-07-28 basic/transports/streamable-http.mdx §Protocol Version Header; basic/versioning.mdx."""

# The bridge's own.
LIMIT_REACHED = -32000
"""A bridge resource cap (``data.limit`` names it). JSON-RPC 2.0 §5.1 leaves -32000..-32099 to implementations;
2026-07-28 basic/index.mdx §Error Codes reserves -32020..-32099 for the spec and keeps -32000..-32019 for codes
implementations already use, which is where this one stays (2025 peers see it as an implementation-defined error)."""
LIMIT_REACHED_STATUS = 503
"""HTTP status of a limit error on the 2026 front (RFC 9110 §15.6.4 Service Unavailable)."""
RATE_LIMITED_STATUS = 429
"""HTTP status of a rate-limit error (``data.limit`` "rate") on the 2026 front: RFC 6585 §4 Too Many Requests."""

MODERN_DEFINED_CODES = frozenset({HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION})
"""The codes 2026-07-28 defines in its reserved sub-range (basic/index.mdx §Error Codes, table)."""
MODERN_RESERVED_RANGE = (-32099, -32020)
"""2026-07-28 basic/index.mdx §Error Codes: "-32020 to -32099 — reserved for the MCP specification";
implementations MUST NOT emit an undefined code from it."""
RETIRED_IN_MODERN = frozenset({RESOURCE_NOT_FOUND_2025, URL_ELICITATION_REQUIRED_2025})
"""2026-07-28 basic/index.mdx §Error Codes: "Implementations of this protocol version MUST NOT emit these codes"."""


def in_modern_reserved_range(code: int) -> bool:
    low, high = MODERN_RESERVED_RANGE
    return low <= code <= high


# ==============================================================================================
# Code <-> code, per pairing
# ==============================================================================================


@dataclass(frozen=True)
class CodeRule:
    """One row: an error of ``source`` (on ``methods``, when ``when`` holds) becomes ``target``."""

    source: int | str
    """A code, or ``"reserved-undefined"`` for every undefined code of the 2026 reserved sub-range."""
    target: int
    methods: frozenset[str] | None
    when: str
    """A named condition (see ``_CONDITIONS``): the spec maps the code only in that case."""
    keep: str
    """What travels: ``"message+data"``, ``"uri-data"`` (``data.uri`` = the requested URI) or
    ``"original-in-data"`` (the whole source error under ``data.upstreamError``)."""
    spec: str
    fallback_message: str = "Upstream error"


TO_MODERN: tuple[CodeRule, ...] = (
    # Direction A: a 2025-era server's error for a 2026-era client.
    CodeRule(RESOURCE_NOT_FOUND_2025, INVALID_PARAMS, None, "always", "message+data",
             "2026-07-28 changelog.mdx §Minor changes item 6; basic/index.mdx §Error Codes (MUST NOT emit -32002); "
             "server/resources.mdx §Error Handling (not found is -32602)", "Resource not found"),
    CodeRule(0, INVALID_PARAMS, frozenset({"resources/read"}), "sdk-unknown-resource", "uri-data",
             "2026-07-28 server/resources.mdx §Error Handling (not found MUST be -32602); repairs mcp 1.x FastMCP, "
             "which answers an unknown resource with code 0 'Unknown resource: <uri>'", "Resource not found"),
    CodeRule(URL_ELICITATION_REQUIRED_2025, INTERNAL_ERROR, None, "always", "original-in-data",
             "2026-07-28 basic/index.mdx §Error Codes (MUST NOT emit -32042; on MRTR methods the legacy upstream "
             "turns it into input_required first: basic/patterns/mrtr.mdx §InputRequiredResult)"),
    CodeRule("reserved-undefined", INTERNAL_ERROR, None, "always", "original-in-data",
             "2026-07-28 basic/index.mdx §Error Codes (MUST NOT emit an undefined code of -32020..-32099)"),
)
"""2025 -> 2026. Anything else (the JSON-RPC codes, -32000..-32019, application codes) passes unchanged."""

TO_LEGACY: tuple[CodeRule, ...] = (
    # Direction B: a 2026-era server's error for a 2025-era client.
    CodeRule(INVALID_PARAMS, RESOURCE_NOT_FOUND_2025, frozenset({"resources/read"}), "names-requested-uri", "message+data",
             "2025-11-25 server/resources.mdx §Error Handling (not found is -32002) <- 2026-07-28 changelog.mdx "
             "§Minor changes item 6; only the 2026 not-found shape (server/resources.mdx §Error Handling example: "
             "data.uri) is renumbered, never a -32602 without it", "Resource not found"),
)
"""2026 -> 2025. Everything else passes unchanged: the JSON-RPC codes mean the same in both eras, and 2025
has no meaning for -32020..-32022 (2025-11-25 gives -32000..-32099 no MCP meaning besides -32002/-32042),
so they reach the client as sent, data included. ``initialize`` refusals have their own rule below."""


def _requested_uri(params: Any) -> str | None:
    uri = params.get("uri") if isinstance(params, dict) else None
    return uri if isinstance(uri, str) else None


def _condition(name: str, error: dict[str, Any], params: Any) -> bool:
    if name == "always":
        return True
    uri = _requested_uri(params)
    if name == "names-requested-uri":
        data = error.get("data")
        return uri is not None and isinstance(data, dict) and data.get("uri") == uri
    if name == "sdk-unknown-resource":
        return uri is not None and str(error.get("message", "")).startswith("Unknown resource")
    raise ValueError(f"unknown condition {name!r}")


def _matches(rule: CodeRule, code: int) -> bool:
    if rule.source == "reserved-undefined":
        return in_modern_reserved_range(code) and code not in MODERN_DEFINED_CODES
    return rule.source == code


def _apply(rules: tuple[CodeRule, ...], error: dict[str, Any], method: str | None, params: Any) -> dict[str, Any]:
    code = error["code"]
    for rule in rules:
        if not _matches(rule, code) or (rule.methods is not None and method not in rule.methods):
            continue
        if not _condition(rule.when, error, params):
            continue
        if rule.keep == "original-in-data":
            return {"code": rule.target, "message": error.get("message") or rule.fallback_message,
                    "data": {"upstreamError": error}}
        if rule.keep == "uri-data":
            return {"code": rule.target, "message": rule.fallback_message, "data": {"uri": _requested_uri(params)}}
        out = {"code": rule.target, "message": error.get("message") or rule.fallback_message}
        if "data" in error:
            out["data"] = error["data"]
        return out
    return error


def malformed_error(error: Any) -> dict[str, Any]:
    """An error object a peer sent that is not ``{code: int, message}``: -32603 carrying it
    (2026-07-28 basic/index.mdx §Error Responses: "Error codes MUST be integers")."""
    return {"code": INTERNAL_ERROR, "message": "Upstream sent a malformed error", "data": error}


def _well_formed(error: Any) -> bool:
    return isinstance(error, dict) and isinstance(error.get("code"), int) and not isinstance(error.get("code"), bool)


def to_modern_error(error: Any, method: str | None = None, params: Any = None) -> dict[str, Any]:
    """A 2025-era error for a 2026-era client (table ``TO_MODERN``)."""
    if not _well_formed(error):
        return malformed_error(error)
    return _apply(TO_MODERN, error, method, params)


def to_legacy_error(error: Any, method: str | None = None, params: Any = None) -> dict[str, Any]:
    """A 2026-era error for a 2025-era client (table ``TO_LEGACY``)."""
    if not _well_formed(error):
        return malformed_error(error)
    return _apply(TO_LEGACY, error, method, params)


def legacy_unsupported_version(supported: list[str], requested: str, upstream: Any = None) -> tuple[int, str, dict[str, Any]]:
    """A 2025 ``initialize`` the bridge cannot serve (the upstream does not speak 2026-07-28): the 2025 shape,
    -32602 with ``{supported, requested}`` (2025-11-25 basic/lifecycle.mdx §Error Handling, example), naming the
    versions (2026-07-28 basic/versioning.mdx §Backward Compatibility with Initialization-Based Versions: a server
    SHOULD name the versions it supports in any error it returns to ``initialize``)."""
    data: dict[str, Any] = {"supported": list(supported), "requested": requested}
    if upstream is not None:
        data["upstream"] = upstream
    return INVALID_PARAMS, "Unsupported protocol version: the upstream server does not serve 2026-07-28", data


# ==============================================================================================
# Code <-> HTTP status
# ==============================================================================================

MODERN_ERROR_STATUS: dict[int, int] = {
    # 2026-07-28 basic/transports/streamable-http.mdx §Server Validation: MUST 400.
    HEADER_MISMATCH: 400,
    # 2026-07-28 basic/transports/streamable-http.mdx §Protocol Version Header: MUST 400.
    UNSUPPORTED_PROTOCOL_VERSION: 400,
    # 2026-07-28 basic/transports/streamable-http.mdx §Backward Compatibility: "modern servers also use 400 for ...
    # MissingRequiredClientCapabilityError".
    MISSING_CLIENT_CAPABILITY: 400,
    # 2026-07-28 basic/transports/streamable-http.mdx §Protocol Version Header: MUST 404 with -32601.
    METHOD_NOT_FOUND: 404,
}
"""HTTP status of a final JSON error response on the 2026 front; any other code: 200."""


def modern_http_status(response: dict[str, Any]) -> int:
    err = response.get("error")
    if isinstance(err, dict):
        code = err.get("code")
        if code == LIMIT_REACHED and isinstance(err.get("data"), dict) and "limit" in err["data"]:
            return RATE_LIMITED_STATUS if err["data"]["limit"] == "rate" else LIMIT_REACHED_STATUS
        if isinstance(code, int):
            return MODERN_ERROR_STATUS.get(code, 200)
    return 200


# The 2025 Streamable HTTP front (2025-11-25 basic/transports.mdx).
LEGACY_ACCEPTED_STATUS = 202
"""§Sending Messages to the Server item 4: an accepted notification or response gets 202, no body."""
LEGACY_SESSION_REQUIRED_STATUS = 400
"""§Session Management item 2: a request without ``Mcp-Session-Id`` (other than initialize) gets 400."""
LEGACY_SESSION_NOT_FOUND_STATUS = 404
"""§Session Management item 3: a terminated or unknown session gets 404 (the client re-initializes, item 4)."""
LEGACY_BAD_VERSION_STATUS = 400
"""§Protocol Version Header: an invalid or unsupported ``MCP-Protocol-Version`` MUST get 400."""
LEGACY_GET_NOT_OFFERED_STATUS = 405
"""§Listening for Messages from the Server item 3: 405 when no SSE stream is offered at the endpoint."""
LEGACY_NOT_ACCEPTABLE_STATUS = 406
"""RFC 9110 §15.5.7: a GET whose Accept does not list text/event-stream (§Listening ... item 2 requires it)."""
LEGACY_REFUSED_STATUS = 400
"""§Sending Messages to the Server item 4: input the server cannot accept gets an HTTP error status (e.g. 400)."""
LEGACY_RPC_ERROR_STATUS = 200
"""A JSON-RPC error answering a request of a live 2025 session is an ordinary response (200, JSON or SSE): never
404, which the client would read as its session ending (§Session Management item 4), so a 2026 -32601 keeps 200."""
LEGACY_ASSUMED_VERSION = "2025-03-26"
"""§Protocol Version Header: without the header and no other way to know, assume 2025-03-26."""


# The bridge's own endpoints besides /mcp: health (/healthz, /readyz) and the internal ones between scaled-out
# instances (/internal/forward, /internal/session). Their meanings are HTTP's (RFC 9110 §15).
OK_STATUS = 200
"""RFC 9110 §15.3.1: a health check that passed; a forwarded call whose answer streams back."""
BAD_REQUEST_STATUS = 400
"""RFC 9110 §15.5.1: an internal request whose body is not a well-formed, fresh forward."""
FORBIDDEN_STATUS = 403
"""RFC 9110 §15.5.4: an internal request whose HMAC does not verify."""
CONTENT_TOO_LARGE_STATUS = 413
"""RFC 9110 §15.5.14: an internal request larger than any call the bridge accepts."""
UNAVAILABLE_STATUS = 503
"""RFC 9110 §15.6.4: the upstream (or the shared store) cannot be reached now; not ready; a strict fleet health check
with a server down."""
SERVER_ERROR_STATUSES_FROM = 500
"""RFC 9110 §15.6: 5xx, the server failed; any status below it shows the upstream is up (a 2025 server answers a 2026
request with 4xx: up, just older)."""


# A 2026 server's HTTP answer that carries no JSON-RPC response (the modern upstream).
UNAUTHORIZED_STATUSES = frozenset({401, 403})
"""2026-07-28 basic/authorization/index.mdx: authentication challenges, never a protocol answer."""


def modern_upstream_status_error(status: int, www_authenticate: str | None = None) -> tuple[int, str, dict[str, Any] | None]:
    """(code, message, data) for a 2026 upstream's HTTP answer without a JSON-RPC body.

    404 is the transport's method-not-found (2026-07-28 basic/transports/streamable-http.mdx §Protocol Version
    Header); anything else is -32603 naming the status (basic/index.mdx §Error Codes: local errors must not look
    like the peer's), with the ``WWW-Authenticate`` challenge for 401/403 so an auth-aware caller can act on it.
    """
    if status == 404:
        return METHOD_NOT_FOUND, "Method not found (upstream HTTP 404)", None
    data: dict[str, Any] = {"httpStatus": status}
    if status in UNAUTHORIZED_STATUSES and www_authenticate:
        data["wwwAuthenticate"] = www_authenticate
    return INTERNAL_ERROR, f"Upstream answered HTTP {status} without a response", data


LEGACY_UPSTREAM_SESSION_GONE_STATUS = 404
"""2025-11-25 basic/transports.mdx §Session Management item 4: 404 to a request carrying a session id means the
session is gone and the request was not processed: re-initialize (the 2025 upstream, direction A)."""


def legacy_upstream_status_error(status: int) -> tuple[int, str, dict[str, Any]]:
    """(code, message, data) for a 2025 server's HTTP error status without a JSON-RPC body (direction A)."""
    data: dict[str, Any] = {"httpStatus": status}
    if status == LEGACY_UPSTREAM_SESSION_GONE_STATUS:
        return INTERNAL_ERROR, "Upstream session expired", {**data, "sessionExpired": True}
    return INTERNAL_ERROR, f"Upstream HTTP {status}", data

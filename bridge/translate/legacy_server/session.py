"""Direction A, pure: the rules of one initialized 2025 upstream session that are not a call's (its handshake,
the bridge's own requests on it, what its loss tells the calls, how long a request no call carries is held).

The shell (``mcp_eras.bridge.upstream.legacy_driver``) runs the session: it sends, reads and waits.
"""

from __future__ import annotations

from typing import Any

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, FrameError, Message, RequestId
from mcp_eras.bridge.translate.legacy_server import frames as tx
from mcp_eras.bridge.translate.legacy_server.pool import INPUT_CAPABILITIES, LIMIT_ERROR, Refuse

HELD_WAIT_S = 60.0
"""How long a session-level server request waits for a call to carry it (at most the request timeout;
60 s is also how long the TypeScript SDK's servers wait for an answer by default)."""

BRIDGE_TIMEOUT_FACTOR = 3
"""``initialize`` may take this many connect timeouts (a server loads before it answers its first request)."""


def initialize_request_params(caps: dict[str, Any] | None, client_info: dict[str, Any] | None,
                              bridge_info: dict[str, str]) -> Message:
    """The ``initialize`` params of a session opened for a client identity (2025-11-25 basic/lifecycle.mdx
    §Initialization): the client's capabilities, and its ``clientInfo`` (name and version as strings), or the bridge's
    own when the session is the bridge's (a provisional one, or a caller that sent none)."""
    info = {"name": str(client_info.get("name")), "version": str(client_info.get("version", "0"))} if client_info else bridge_info
    return tx.initialize_params(caps, info)


SETTLE_TIMEOUT_S = 2.0
"""How long the ``ping`` that closes a session's start may take (a server that does not answer it is not waited for)."""

def settles_start(caps: dict[str, Any] | None) -> bool:
    """Whether a new session waits, after ``notifications/initialized``, for the requests its server asks at once
    (2025-11-25 client/roots.mdx §Listing Roots: e.g. ``roots/list``) before its first call goes upstream: only when
    its client declared something it can be asked for (otherwise each is answered -32601 on arrival, as such a client
    would). The wait is one ``ping`` (2025-11-25 basic/utilities/ping.mdx: either party may send it): a server handles
    its input in order, so what it asked on ``initialized`` arrives before the ping's answer."""
    return bool(caps) and not caps.keys().isdisjoint(INPUT_CAPABILITIES)  # type: ignore[union-attr]


def unsupported_version(result: Any) -> str:
    """Why an ``InitializeResult`` the bridge cannot serve on ends the handshake (2025-11-25 basic/lifecycle.mdx
    §Version Negotiation: the client should then disconnect)."""
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    return f"upstream negotiated unsupported protocol version {version!r}"


def own_request_outcome(method: str, response: Message) -> dict[str, Any] | str:
    """The result of a request the bridge made itself (``initialize``, ``logging/setLevel``, ``resources/subscribe``),
    or why it failed."""
    if "error" in response:
        err = response["error"] if isinstance(response["error"], dict) else {}
        return f"upstream {method} failed: {err.get('message', err)}"
    result = response.get("result")
    return result if isinstance(result, dict) else {}


def lost_call_frame(upstream_id: int, why: str) -> Message:
    """What a call in flight on a session that died receives in place of its response (-32603 at once)."""
    return jsonrpc.error_response(upstream_id, INTERNAL_ERROR, f"Upstream failed: {why}")


def unknown_method_frame(server_id: RequestId, method: str) -> Message:
    """The answer to a server request the bridge does not serve on a session (2025-11-25: -32601)."""
    return jsonrpc.error_response(server_id, METHOD_NOT_FOUND, f"Method not found: {method}")


def wants_log_level(already_set: bool, server_caps: dict[str, Any]) -> bool:
    """Whether the session needs its one ``logging/setLevel``: 2026 requests opt into logs per request
    (``logLevel``), a 2025 server needs one per session (2025-11-25 server/utilities/logging.mdx §Setting Log Level),
    set to ``debug`` so the bridge can filter per request."""
    return not already_set and isinstance(server_caps.get("logging"), dict)


def held_wait_ms(request_timeout: float) -> int:
    """How long a request no call can carry is held for the session's next input-capable call."""
    return int(min(request_timeout, HELD_WAIT_S) * 1000)


def session_expired(response: Message) -> bool:
    """The upstream forgot the session and did not process the request (2025-11-25 basic/transports.mdx §Session
    Management: a 404 to a request with ``Mcp-Session-Id``): re-initialize and send it once more."""
    err = response.get("error")
    data = err.get("data") if isinstance(err, dict) else None
    return isinstance(data, dict) and data.get("sessionExpired") is True


def parked_lifetime(parked_timeout: float, state_ttl: float) -> float:
    """A parked call lives no longer than the ``requestState`` that names it."""
    return min(parked_timeout, state_ttl)


# --- the named refusals of a call (2026-07-28 basic/patterns/mrtr.mdx §Request State: invalid state is -32602; the
# bridge's caps answer its -32000 with the limit named and 503: the caller may retry later) ---------------------------

def refusal_error(refused: Refuse) -> FrameError:
    """A cap of the pool reached (``Pool.acquire``)."""
    return FrameError(LIMIT_ERROR, refused.message, {"limit": refused.limit}, http_status=refused.status)


def no_session_in_time() -> FrameError:
    """An input-capable call waited its whole deadline for a free session of its identity."""
    return FrameError(LIMIT_ERROR, "Timed out waiting for a free upstream session", {"limit": "per_identity_sessions"},
                      http_status=503)


def no_lease_in_time() -> FrameError:
    """A parked call's retry waited its whole deadline for its own session's input lease."""
    return FrameError(LIMIT_ERROR, "Timed out waiting for the upstream session", {"limit": "lease_wait"}, http_status=503)


def unknown_state() -> FrameError:
    """A ``requestState`` that names no parked call (never issued, already used, or expired)."""
    return FrameError(INVALID_PARAMS, "Invalid requestState: unknown, already used or expired", {"reason": "unknown"})


def lost_state() -> FrameError:
    """A ``requestState`` whose parked call died with its upstream session."""
    return FrameError(INVALID_PARAMS, "Invalid requestState: the upstream session was lost", {"reason": "lost"})


def no_answer_in_time(rid: RequestId | None, faults: str = "") -> Message:
    """The call's deadline passed unanswered; ``faults``: what its upstream did wrong meanwhile, when anything
    (e.g. answers over the frame limit dropped), so the caller learns why."""
    return jsonrpc.error_response(rid, INTERNAL_ERROR, "Upstream did not answer in time" + (f" (upstream: {faults})" if faults else ""))


def no_start_in_time(timeout: float, faults: str = "") -> str:
    """The session's handshake (``initialize``) did not finish within the caller's request timeout."""
    return f"upstream did not start (initialize) within the request timeout ({timeout:g} s)" + (f"; {faults}" if faults else "")

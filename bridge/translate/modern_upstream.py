"""Pure: the decisions of a 2026-07-28 upstream client (direction B's far side), no I/O, no clock.

* wire ids: the bridge mints its own request ids toward the server and gives the caller's back on the
  response and on the ``subscriptionId`` of its listen's notifications (2026-07-28
  basic/patterns/subscriptions.mdx §Receiving Notifications);
* ``server/discover`` caching: a result is reused for its ``ttlMs``, per principal unless ``cacheScope`` is
  ``public`` (2026-07-28 server/utilities/caching.mdx); ``DiscoverCacheState`` is plain data, ``now`` an argument;
* stdio notification routing: progress by the (wire) progress token, listen notifications by
  ``subscriptionId``, ``notifications/cancelled`` as the end of a listen, logs only when exactly one request
  asked for them (2026-07-28 basic/transports/stdio.mdx §Receiving Messages: stdio carries no request reference
  for logs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate.eras import (
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SUBSCRIPTION_ID,
    MODERN,
)
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId

LISTEN = "subscriptions/listen"
PUBLIC_KEY = "\0public"


def bridge_meta(bridge_info: dict[str, str]) -> dict[str, Any]:
    """The ``_meta`` of a request the bridge sends on its own behalf (no caller): 2026-07-28 basic/index.mdx §_meta
    (every request names its version, capabilities and client)."""
    return {META_PROTOCOL_VERSION: MODERN, META_CLIENT_CAPABILITIES: {}, META_CLIENT_INFO: dict(bridge_info)}


def is_response_for(msg: Any, wire_id: RequestId) -> bool:
    """Whether ``msg`` is a well-formed JSON-RPC response to our request ``wire_id``."""
    if not isinstance(msg, dict):
        return False
    try:
        jsonrpc.check_envelope(msg)
    except jsonrpc.FrameError:
        return False
    return jsonrpc.is_response(msg) and msg.get("id") == wire_id


def retag_notification(msg: Message, wire_id: RequestId, caller_id: RequestId) -> Message:
    """Subscription notifications name the upstream listen id; give them the caller's id back."""
    params = msg.get("params")
    if isinstance(params, dict):
        meta = params.get("_meta")
        if isinstance(meta, dict) and META_SUBSCRIPTION_ID in meta and meta[META_SUBSCRIPTION_ID] == wire_id:
            return {**msg, "params": {**params, "_meta": {**meta, META_SUBSCRIPTION_ID: caller_id}}}
    return msg


def retag_response(resp: Message, wire_id: RequestId, caller_id: RequestId) -> Message:
    out = {**resp, "id": caller_id}
    result = out.get("result")
    if isinstance(result, dict):
        meta = result.get("_meta")
        if isinstance(meta, dict) and meta.get(META_SUBSCRIPTION_ID) == wire_id:
            out["result"] = {**result, "_meta": {**meta, META_SUBSCRIPTION_ID: caller_id}}
    return out


def idless_error(msg: Any, caller_id: RequestId) -> Message | None:
    """An error the server could not tie to our request (no id): the caller's error response, or None."""
    if isinstance(msg, dict) and "error" in msg and msg.get("id") is None and isinstance(msg["error"], dict):
        err = msg["error"]
        return jsonrpc.error_response(caller_id, err.get("code", errors.INTERNAL_ERROR), str(err.get("message", "error")),
                                      err.get("data"))
    return None


# ==============================================================================================
# server/discover
# ==============================================================================================


@dataclass
class DiscoverCacheState:
    entries: dict[str, tuple[float, Message]] = field(default_factory=dict)
    """Cache key (principal, or the public key) -> (expiry on the monotonic clock, DiscoverResult)."""


def _key(principal: str | None) -> str:
    return "" if principal is None else f"p:{principal}"


def cache_get(state: DiscoverCacheState, principal: str | None, now: float) -> Message | None:
    for key in (_key(principal), PUBLIC_KEY):
        entry = state.entries.get(key)
        if entry and entry[0] > now:
            return entry[1]
    return None


def cache_put(state: DiscoverCacheState, principal: str | None, result: Message, now: float) -> None:
    ttl = result.get("ttlMs")
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl <= 0:
        return
    key = PUBLIC_KEY if result.get("cacheScope") == "public" else _key(principal)
    state.entries[key] = (now + ttl / 1000.0, result)


def discover_outcome(resp: Message) -> Message | str:
    """The DiscoverResult a ``server/discover`` response gives, or the reason it gives none.

    A -32022 names the server's versions (2026-07-28 basic/versioning.mdx §Protocol Version Negotiation):
    it is reported like a DiscoverResult listing them, so the 2025 front can refuse ``initialize`` naming them.
    """
    err = resp.get("error")
    if isinstance(err, dict):
        data = err.get("data")
        if err.get("code") == errors.UNSUPPORTED_PROTOCOL_VERSION and isinstance(data, dict):
            supported = [v for v in data.get("supported") or [] if isinstance(v, str)]
            return {"resultType": "complete", "supportedVersions": supported, "capabilities": {}}
        return f"upstream server/discover failed: {err.get('code')} {err.get('message')}"
    result = resp.get("result")
    if not isinstance(result, dict):
        return "upstream server/discover returned no result"
    return result


# ==============================================================================================
# stdio notification routing
# ==============================================================================================


class Routable(Protocol):
    """What routing needs to know of one request in flight on the child."""

    method: str
    progress_token: Any
    wants_logs: bool


@dataclass
class WireRequest:
    wire: Message
    """The request as sent to the child: our id, and our progress token in place of the caller's."""
    wire_token: str | None
    progress_token: Any
    wants_logs: bool


def prepare_wire(request: Message, wire_id: int) -> WireRequest:
    """The request for the child (2026-07-28 basic/transports/stdio.mdx: one channel for every caller, so ids and
    progress tokens are the bridge's own and mapped back)."""
    params = request.get("params")
    params = dict(params) if isinstance(params, dict) else {}
    meta = dict(params.get("_meta") or {})
    wire_token = progress_token = None
    if "progressToken" in meta:
        progress_token = meta["progressToken"]
        wire_token = f"p{wire_id}"
        meta["progressToken"] = wire_token
    params["_meta"] = meta
    return WireRequest({**request, "id": wire_id, "params": params}, wire_token, progress_token, META_LOG_LEVEL in meta)


Route = tuple[Literal["deliver", "end-listen", "drop"], int | None, Message | None]


def route_notification(msg: Message, pending: Mapping[int, Routable], by_token: Mapping[str, int]) -> Route:
    """Where one notification from the child goes: ("deliver", wire id, message as the caller should see it),
    ("end-listen", wire id, None) for a listen the server closed, or ("drop", None, None)."""
    method = msg.get("method")
    params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
    meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
    if META_SUBSCRIPTION_ID in meta:
        wire_id = meta[META_SUBSCRIPTION_ID]
        if isinstance(wire_id, int) and wire_id in pending:
            return "deliver", wire_id, msg
        return "drop", None, None
    if method == "notifications/cancelled":
        # 2026-07-28 basic/patterns/subscriptions.mdx §Graceful Closure: a server ends a listen stream this way.
        rid = params.get("requestId")
        if isinstance(rid, int) and rid in pending and pending[rid].method == LISTEN:
            return "end-listen", rid, None
        return "drop", None, None
    if method == "notifications/progress":
        token = params.get("progressToken")
        wire_id = by_token.get(token) if isinstance(token, str) else None
        if wire_id is not None and wire_id in pending:
            return "deliver", wire_id, {**msg, "params": {**params, "progressToken": pending[wire_id].progress_token}}
        return "drop", None, None
    if method == "notifications/message":
        wanting = [wire_id for wire_id, e in pending.items() if e.wants_logs and e.method != LISTEN]
        if len(wanting) == 1:
            return "deliver", wanting[0], msg
    return "drop", None, None


def listen_closed(wire_id: int) -> Message:
    """The graceful-close result of a listen the server ended with ``notifications/cancelled``."""
    return jsonrpc.result_response(wire_id, {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: wire_id}})

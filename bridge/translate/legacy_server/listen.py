"""Direction A, pure: ``subscriptions/listen`` served from a 2025 session's unsolicited notifications.

A 2026 client opens a long-lived ``subscriptions/listen`` request naming the change notifications it
wants (2026-07-28 basic/patterns/subscriptions.mdx); a 2025 server sends ``list_changed`` notifications
on its own and ``notifications/resources/updated`` for URIs subscribed with ``resources/subscribe``
(2025-11-25 server/resources.mdx §Subscriptions). Subscription counts per session live in
``mcp_eras.bridge.translate.legacy_server.pool``.
"""

from __future__ import annotations

from typing import Any

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.eras import META_SUBSCRIPTION_ID
from mcp_eras.bridge.translate.jsonrpc import Message

LIST_CHANGED = {
    # 2025-11-25 notification -> (2026 listen filter flag, server capability announcing it)
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


LISTEN = "subscriptions/listen"


def listen_closed_result(listen_id: Any) -> Message:
    """The completion of a listen its server ends (2026-07-28 schema ``SubscriptionsListenResult``, the spec's
    erratum to basic/patterns/subscriptions.mdx: the graceful end carries the listen's id as
    ``io.modelcontextprotocol/subscriptionId``; a stream closed without it is an abrupt drop)."""
    return {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: listen_id}}


def listen_completion(listen_id: Any) -> Message:
    """The JSON-RPC response that ends listen ``listen_id`` gracefully."""
    return jsonrpc.result_response(listen_id, listen_closed_result(listen_id))



def resync_notes(subscribed: list[str]) -> list[Message]:
    """After the upstream session was re-initialized, changes may have been missed: tell listeners
    every list may have changed and every subscribed resource may have been updated."""
    notes = [{"jsonrpc": "2.0", "method": method, "params": {}} for method in LIST_CHANGED]
    return notes + [{"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}} for uri in subscribed]

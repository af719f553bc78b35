"""Protocol revisions, the 2026 ``_meta`` keys, and era classification of frames."""

from __future__ import annotations

from typing import Any, Literal

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
MODERN_VERSIONS: tuple[str, ...] = (MODERN,)
LEGACY_VERSIONS: tuple[str, ...] = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""Handshake-era revisions, newest first (the order the bridge prefers when it negotiates)."""

Era = Literal["2025-11-25", "2026-07-28"]
EraSetting = Literal["auto", "2025-11-25", "2026-07-28"]

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
META_RELATED_TASK = "io.modelcontextprotocol/related-task"
MODERN_REQUEST_META_KEYS = (META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL)
TRACE_META_KEYS = ("traceparent", "tracestate", "baggage")

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
LOG_LEVEL_RANK = {name: i for i, name in enumerate(LOG_LEVELS)}

TASKS_EXTENSION_METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
"""The ``io.modelcontextprotocol/tasks`` extension's client methods (ext tasks.mdx): served by
``mcp_eras.bridge.layers.tasks`` when the upstream supports tasks, -32601 otherwise."""

# Methods of the 2026 client surface, with the tasks extension's.
MODERN_CLIENT_METHODS = TASKS_EXTENSION_METHODS | frozenset(
    {
        "server/discover",
        "completion/complete",
        "prompts/get",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "subscriptions/listen",
        "tools/call",
        "tools/list",
    }
)
REMOVED_IN_MODERN = frozenset(
    {"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "tasks/result", "tasks/list"}
)
MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read", "tasks/result"})
"""Methods whose canonical result may be ``input_required``. ``tasks/result`` is one only inside the
bridge: direction B answers a 2025 client's ``tasks/result`` with the task's input requests that way, and
the legacy front's MRTR loop turns them into server->client requests (mcp_eras.bridge.layers.tasks_legacy_client)."""
CACHEABLE_METHODS = frozenset(
    {"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"}
)
NAMED_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
                 **dict.fromkeys(TASKS_EXTENSION_METHODS, "taskId")}
"""Methods whose ``Mcp-Name`` header mirrors a params field (2026 Streamable HTTP; the tasks extension's
§Streamable HTTP: Routing Headers for ``tasks/get``, ``tasks/update``, ``tasks/cancel``)."""

INPUT_REQUEST_METHODS = frozenset({"elicitation/create", "sampling/createMessage", "roots/list"})

LEGACY_CLIENT_METHODS = frozenset(
    {
        "initialize",
        "ping",
        "completion/complete",
        "logging/setLevel",
        "prompts/get",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "tools/call",
        "tools/list",
        # 2025-11-25 experimental tasks (basic/utilities/tasks.mdx), served by mcp_eras.bridge.layers.tasks_legacy_client
        "tasks/get",
        "tasks/result",
        "tasks/list",
        "tasks/cancel",
    }
)


def request_meta(msg: dict[str, Any]) -> dict[str, Any] | None:
    params = msg.get("params")
    if not isinstance(params, dict):
        return None
    meta = params.get("_meta")
    return meta if isinstance(meta, dict) else None


def frame_era(msg: dict[str, Any]) -> Era | None:
    """Which era a client frame belongs to, from its body alone (None when it cannot tell).

    A 2025 ``initialize`` carries ``params.protocolVersion``; an ``initialize`` sent with the 2026
    ``_meta`` envelope instead is a 2026 request (for a method 2026 removed: -32601).
    """
    params = msg.get("params")
    if isinstance(params, dict):
        if "protocolVersion" in params and msg.get("method") == "initialize":
            return LEGACY
        meta = params.get("_meta")  # (``request_meta``)
        if isinstance(meta, dict) and META_PROTOCOL_VERSION in meta:
            return MODERN
    if msg.get("method") == "initialize":
        return LEGACY
    return None

"""Direction B, pure: a 2025-era session in front of a 2026-07-28 upstream.

Plain functions over dicts; no I/O, no clocks: the shapes of one era turned into the other's. The
session rules are ``legacy_client.session``'s, the MRTR rounds ``legacy_client.mrtr``'s, the listen ``legacy_client.listen``'s.

Sections: 2025-11-25 basic/lifecycle.mdx (initialize, capabilities); 2026-07-28 basic/index.mdx §General
fields (``_meta``), changelog.mdx §Major changes (what moved from the session into each request),
server/discover.mdx (the DiscoverResult that answers initialize), basic/patterns/subscriptions.mdx.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate.eras import (
    LEGACY,
    LEGACY_VERSIONS,
    LOG_LEVEL_RANK,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_RELATED_TASK,
    META_SERVER_INFO,
    META_SUBSCRIPTION_ID,
    MODERN,
)
from mcp_eras.bridge.translate.jsonrpc import FrameError, Message, RequestId
from mcp_eras.bridge.translate.legacy_client.tasks import TASK_REQUEST_META
from mcp_eras.bridge.translate.modern_front import malformed_capability

# Notifications an upstream listen stream may carry that mean something to a 2025 client.
LISTEN_NOTIFICATIONS = frozenset(
    {
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/tasks/status",  # [tasks hook] direction B task status, to the session's GET stream
    }
)
REQUEST_SCOPED_NOTIFICATIONS = frozenset({"notifications/progress", "notifications/message"})
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
LIST_RESULT_METHODS = frozenset({"tools/list", "prompts/list", "resources/list", "resources/templates/list"})


# --------------------------------------------------------------------------------------------
# Session identity (what a 2025 session fixes once and a 2026 request carries every time)
# --------------------------------------------------------------------------------------------


@dataclass
class SessionIdentity:
    """What ``initialize`` (and later ``logging/setLevel``) told the bridge about a legacy client."""

    protocol_version: str
    client_capabilities: dict[str, Any]
    client_info: dict[str, Any]
    log_level: str | None = None
    server_capabilities: dict[str, Any] = field(default_factory=dict)
    """The capabilities the bridge advertised to this client (legacy shape)."""
    modern_cache: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)
    """``modern_capabilities``, mapped once (derived: not in the JSON)."""

    @property
    def modern_capabilities(self) -> dict[str, Any]:
        """The session's capabilities in the 2026 shape (one object for all its requests, never changed)."""
        if self.modern_cache is None:
            self.modern_cache = map_client_capabilities(self.client_capabilities)
        return self.modern_cache

    def to_json(self) -> dict[str, Any]:
        return {"protocol_version": self.protocol_version, "client_capabilities": self.client_capabilities,
                "client_info": self.client_info, "log_level": self.log_level, "server_capabilities": self.server_capabilities}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SessionIdentity:
        return cls(**data)


def negotiate_version(requested: Any) -> str:
    """The legacy revision to answer ``initialize`` with: the client's if the bridge speaks it, else the latest."""
    if isinstance(requested, str) and requested in LEGACY_VERSIONS:
        return requested
    return LEGACY


LEGACY_CAPABILITY_OBJECTS: dict[str, tuple[str, ...]] = {
    "elicitation": ("form", "url"), "roots": (), "sampling": ("context", "tools"), "experimental": (),
    "tasks": ("cancel", "list", "requests"),
}
"""The 2025-11-25 schema's ``ClientCapabilities`` (schema/2025-11-25/schema.json): each known capability is an object,
and so are these members of it; ``experimental`` maps names to objects. The set is open: others pass as they are."""


def parse_initialize(params: Any) -> SessionIdentity:
    """Session identity from ``initialize`` params; FrameError(-32602) when they are unusable: the 2025-11-25 schema
    (InitializeRequestParams) requires ``protocolVersion``, ``capabilities`` and ``clientInfo`` (an Implementation:
    ``name`` and ``version`` strings); 2025-11-25 basic/lifecycle.mdx §Initialization ("MUST initiate this phase by
    sending ... Client implementation information")."""
    if not isinstance(params, dict):
        raise FrameError(jsonrpc.INVALID_PARAMS, "Invalid params: initialize requires params")
    requested = params.get("protocolVersion")
    if not isinstance(requested, str):
        raise FrameError(jsonrpc.INVALID_PARAMS, "Invalid params: protocolVersion must be a string")
    caps = params.get("capabilities")
    if caps is None:
        caps = {}
    where = malformed_capability(caps, LEGACY_CAPABILITY_OBJECTS)
    if where is not None:
        # Refused here, before any upstream hears of it: these capabilities would be sent on with every request.
        raise FrameError(jsonrpc.INVALID_PARAMS, f"Invalid params: capabilities{where} must be an object",
                         {"field": f"capabilities{where}"})
    info = params.get("clientInfo")
    if not (isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)):
        raise FrameError(jsonrpc.INVALID_PARAMS, "Invalid params: clientInfo must be an object with string name and version")
    return SessionIdentity(protocol_version=negotiate_version(requested), client_capabilities=caps, client_info=info)


# --------------------------------------------------------------------------------------------
# Capabilities (2025-11-25 basic/lifecycle.mdx §Capability Negotiation -> 2026-07-28 schema ClientCapabilities)
# --------------------------------------------------------------------------------------------


def map_client_capabilities(caps: dict[str, Any]) -> dict[str, Any]:
    """2025 ``initialize.capabilities`` -> 2026 per-request ``clientCapabilities`` (a new object; the values it
    keeps are the session's own, shared, never changed here or downstream: see ``to_canonical_request``)."""
    out: dict[str, Any] = {}
    if isinstance(caps.get("experimental"), dict):
        out["experimental"] = caps["experimental"]
    if "roots" in caps and caps["roots"] is not None:
        out["roots"] = {}  # 2026 roots capability has no listChanged
    for key in ("sampling", "elicitation"):
        value = caps.get(key)
        if isinstance(value, dict):
            out[key] = value
    # tasks (client-hosted) cannot be expressed in 2026; unknown keys have no 2026 meaning.
    return out


def map_server_capabilities(caps: dict[str, Any]) -> dict[str, Any]:
    """2026 ``DiscoverResult.capabilities`` -> 2025 ``InitializeResult.capabilities`` (drops ``extensions``)."""
    out: dict[str, Any] = {}
    for key, value in caps.items():
        if key == "extensions":
            continue
        out[key] = copy.deepcopy(value)
    return out


def client_declares(caps: dict[str, Any], input_request: dict[str, Any]) -> bool:
    """Whether a legacy client's ``initialize`` capabilities cover one 2026 input request."""
    method = input_request.get("method")
    params = input_request.get("params") if isinstance(input_request.get("params"), dict) else {}
    if method == "roots/list":
        return isinstance(caps.get("roots"), dict)
    if method == "sampling/createMessage":
        sampling = caps.get("sampling")
        if not isinstance(sampling, dict):
            return False
        if ("tools" in params or "toolChoice" in params) and not isinstance(sampling.get("tools"), dict):
            return False
        # `includeContext` is not checked: 2025-11-25 client/sampling.mdx says servers SHOULD use it only
        # with `sampling.context` declared (a SHOULD aimed at the server); the bridge is no stricter.
        return True
    if method == "elicitation/create":
        elicitation = caps.get("elicitation")
        if not isinstance(elicitation, dict):
            return False
        mode = params.get("mode", "form")
        if mode == "url":
            return isinstance(elicitation.get("url"), dict)
        # {} means form only (2025-11-25); an explicit form entry also does.
        return not elicitation or isinstance(elicitation.get("form"), dict)
    return False


# --------------------------------------------------------------------------------------------
# initialize (2025-11-25 basic/lifecycle.mdx §Initialization, answered from 2026-07-28 server/discover.mdx)
# --------------------------------------------------------------------------------------------


def initialize_result(discover: dict[str, Any], identity: SessionIdentity, bridge_info: dict[str, str]) -> dict[str, Any]:
    """The ``InitializeResult`` a legacy client gets, answered locally from the upstream's ``DiscoverResult``.

    Raises FrameError(-32602, data={supported, requested}) when the upstream does not serve 2026-07-28.
    """
    supported = discover.get("supportedVersions")
    if not isinstance(supported, list) or MODERN not in supported:
        raise FrameError(*errors.legacy_unsupported_version(list(LEGACY_VERSIONS), identity.protocol_version, supported))
    caps = discover.get("capabilities")
    server_caps = map_server_capabilities(caps if isinstance(caps, dict) else {})
    meta = discover.get("_meta")
    info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
    if not (isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str)):
        info = dict(bridge_info)
    result: dict[str, Any] = {
        "protocolVersion": identity.protocol_version,
        "capabilities": server_caps,
        "serverInfo": copy.deepcopy(info),
    }
    if isinstance(discover.get("instructions"), str):
        result["instructions"] = discover["instructions"]
    identity.server_capabilities = server_caps
    return result


# --------------------------------------------------------------------------------------------
# Requests: legacy -> canonical (2026-07-28 basic/index.mdx §_meta: version, capabilities, client info per request)
# --------------------------------------------------------------------------------------------


def request_meta(identity: SessionIdentity, original: dict[str, Any] | None = None) -> dict[str, Any]:
    """The 2026 ``_meta`` for one request of the session (the request's own keys kept, minus related-task)."""
    meta: dict[str, Any] = {}
    if isinstance(original, dict):
        meta.update({k: v for k, v in original.items() if k != META_RELATED_TASK})
    meta[META_PROTOCOL_VERSION] = MODERN
    meta[META_CLIENT_CAPABILITIES] = identity.modern_capabilities
    meta[META_CLIENT_INFO] = identity.client_info
    if identity.log_level is not None:
        meta[META_LOG_LEVEL] = identity.log_level
    else:
        meta.pop(META_LOG_LEVEL, None)
    return meta


def to_canonical_request(msg: Message, identity: SessionIdentity) -> Message:
    """A legacy client request as the canonical 2026 request (same id; ``_meta`` stamped from the session).

    New objects down to ``params._meta``; below that, values are shared with ``msg`` and the session (no copy per
    call). Neither is changed here, and every later step copies the level it changes (copy on write: the
    upstream layers' ``{**request, "params": ...}``), so sharing is safe; tests/unit/test_legacy_front_translate.py
    pins it."""
    params = msg.get("params")
    new_params: dict[str, Any] = dict(params) if isinstance(params, dict) else {}
    new_params["_meta"] = request_meta(identity, new_params.get("_meta"))
    task = new_params.pop("task", None)
    if isinstance(task, dict):  # [tasks hook] 2025 task augmentation, for the tasks layer (mcp_eras.bridge.layers.tasks)
        new_params["_meta"][TASK_REQUEST_META] = task
    new_params.pop("inputResponses", None)  # 2026-only fields a legacy client has no business sending
    new_params.pop("requestState", None)
    return jsonrpc.request(msg["id"], msg["method"], new_params)


def listen_filter(server_caps: dict[str, Any], uris: Iterable[str]) -> dict[str, Any]:
    """The ``SubscriptionFilter`` covering what a legacy session can receive unsolicited
    (2026-07-28 basic/patterns/subscriptions.mdx §Notification Filter)."""
    filt: dict[str, Any] = {}
    for cap, key in (("tools", "toolsListChanged"), ("prompts", "promptsListChanged"), ("resources", "resourcesListChanged")):
        c = server_caps.get(cap)
        if isinstance(c, dict) and c.get("listChanged"):
            filt[key] = True
    res = server_caps.get("resources")
    uri_list = sorted(set(uris))
    if uri_list and isinstance(res, dict) and res.get("subscribe"):
        filt["resourceSubscriptions"] = uri_list
    return filt


def listen_request(id: RequestId, identity: SessionIdentity, filt: dict[str, Any]) -> Message:
    meta = request_meta(identity)
    meta.pop(META_LOG_LEVEL, None)  # never logs on a listen stream
    return jsonrpc.request(id, "subscriptions/listen", {"_meta": meta, "notifications": filt})


# --------------------------------------------------------------------------------------------
# Results and errors: canonical -> legacy
# --------------------------------------------------------------------------------------------


def _strip_result_meta(result: dict[str, Any]) -> None:
    meta = result.get("_meta")
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k not in (META_SERVER_INFO, META_SUBSCRIPTION_ID)}
        if meta:
            result["_meta"] = meta
        else:
            result.pop("_meta", None)


def _object_root_schema(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "object"


def to_legacy_result(method: str, result: dict[str, Any]) -> dict[str, Any]:
    """A 2026 ``complete`` result as a 2025 result (2026-only fields removed, widened fields narrowed)."""
    out = {k: v for k, v in result.items() if k not in ("resultType", "ttlMs", "cacheScope")}
    _strip_result_meta(out)
    if method == "tools/call" and "structuredContent" in out and not isinstance(out["structuredContent"], dict):
        sc = out.pop("structuredContent")
        content = out.get("content")
        if not isinstance(content, list):
            content = []
        if not any(isinstance(c, dict) and c.get("type") == "text" for c in content):
            content = [*content, {"type": "text", "text": jsonrpc.dumps(sc).decode()}]
        out["content"] = content
    elif method == "tools/list" and isinstance(out.get("tools"), list):
        tools = []
        for tool in out["tools"]:
            if isinstance(tool, dict) and "outputSchema" in tool and not _object_root_schema(tool["outputSchema"]):
                tool = {k: v for k, v in tool.items() if k != "outputSchema"}
            tools.append(tool)
        out["tools"] = tools
    return out


def to_legacy_response(method: str, response: Message, legacy_id: RequestId, params: dict[str, Any] | None = None) -> Message:
    """A canonical ``complete`` response (or error) for a legacy client, with its own request id."""
    if "error" in response:
        return {"jsonrpc": "2.0", "id": legacy_id, "error": errors.to_legacy_error(response["error"], method, params)}
    result = response.get("result")
    if not isinstance(result, dict):
        return jsonrpc.error_response(legacy_id, jsonrpc.INTERNAL_ERROR, "Upstream returned a malformed result")
    rtype = result.get("resultType", "complete")
    if rtype != "complete":
        return jsonrpc.error_response(
            legacy_id, jsonrpc.INTERNAL_ERROR, f"Upstream returned a {rtype!r} result the bridge cannot translate for {method}"
        )
    return jsonrpc.result_response(legacy_id, to_legacy_result(method, result))


def result_type(response: Message) -> str | None:
    result = response.get("result")
    if not isinstance(result, dict):
        return None
    value = result.get("resultType", "complete")
    return value if isinstance(value, str) else None


# --------------------------------------------------------------------------------------------
# Notifications: canonical -> legacy
# --------------------------------------------------------------------------------------------


def to_legacy_notification(msg: Message) -> Message | None:
    """A 2026 notification for a legacy client (subscription tag removed), or None when it has no 2025 meaning."""
    method = msg.get("method")
    if method == ACKNOWLEDGED or method == "notifications/cancelled":
        return None
    params = msg.get("params")
    if isinstance(params, dict) and isinstance(params.get("_meta"), dict) and META_SUBSCRIPTION_ID in params["_meta"]:
        meta = {k: v for k, v in params["_meta"].items() if k != META_SUBSCRIPTION_ID}
        params = {k: v for k, v in params.items() if k != "_meta"}
        if meta:
            params["_meta"] = meta
        return jsonrpc.notification(method, params or None)
    return msg


def log_rank(level: Any) -> int:
    """RFC 5424 severity order of a log level name (unknown names rank above every known one)."""
    return LOG_LEVEL_RANK.get(level, len(LOG_LEVEL_RANK)) if isinstance(level, str) else len(LOG_LEVEL_RANK)


def validate_log_level(params: Any) -> str:
    """``logging/setLevel`` params -> level; FrameError(-32602) when it is not an RFC 5424 level."""
    level = params.get("level") if isinstance(params, dict) else None
    if not isinstance(level, str) or level not in LOG_LEVEL_RANK:
        raise FrameError(jsonrpc.INVALID_PARAMS, f"Invalid params: unknown logging level {level!r}",
                         {"levels": list(LOG_LEVEL_RANK)})
    return level

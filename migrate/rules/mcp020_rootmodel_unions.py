"""MCP020 rootmodel-unions: message unions are plain unions in v2 (no ``.root``, no wrapper constructors, no
``model_validate``)."""

from __future__ import annotations

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP020",
        "rootmodel-unions",
        Kind.REQUIRED,
        Safety.REPORT,
        "Message unions are plain unions: drop `.root`, wrapper constructors, and `X.model_validate` on unions",
        "replace-rootmodel-by-union-types-with-typeadapter-validation",
    )
    TRIGGERS = (
        "JSONRPCMessage",
        "ClientRequest",
        "ServerRequest",
        "ClientNotification",
        "ServerNotification",
        "ClientResult",
        "ServerResult",
    )
    CALLEES = frozenset(
        {
            "mcp.types.ClientNotification",
            "mcp.types.ClientNotification.model_validate",
            "mcp.types.ClientRequest",
            "mcp.types.ClientRequest.model_validate",
            "mcp.types.ClientResult",
            "mcp.types.ClientResult.model_validate",
            "mcp.types.JSONRPCMessage",
            "mcp.types.JSONRPCMessage.model_validate",
            "mcp.types.ServerNotification",
            "mcp.types.ServerNotification.model_validate",
            "mcp.types.ServerRequest",
            "mcp.types.ServerRequest.model_validate",
            "mcp.types.ServerResult",
            "mcp.types.ServerResult.model_validate",
        }
    )
    MESSAGE = "message unions are plain unions in v2: drop the wrapper/.root and validate with a TypeAdapter"

"""MCP020 rootmodel-unions: message unions are plain unions in v2 (no ``.root``, no wrapper constructors, no
``model_validate``).

A wrapper constructor around one positional argument (``ClientNotification(InitializedNotification())``)
is unwrapped: v2 takes the member itself. ``model_validate`` on a union and ``.root`` keep a marker.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector

WRAPPERS = frozenset({"ClientNotification", "ClientRequest", "ClientResult", "JSONRPCMessage", "ServerNotification",
                      "ServerRequest", "ServerResult"})


class Rule(CallDetector):
    META = RuleMeta(
        "MCP020",
        "rootmodel-unions",
        Kind.REQUIRED,
        Safety.REVIEW,
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

    def visit_Call(self, node: cst.Call) -> None:
        if self.is_site(node) and not self._wrapper(node):
            self.report(node, self.MESSAGE, fixed=False)

    def _wrapper(self, node: cst.Call) -> bool:
        return (len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star
                and any(q.rsplit(".", 1)[-1] in WRAPPERS and q.startswith("mcp.types.") for q in self.qnames(node.func)))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not self._wrapper(original_node):
            return updated_node
        if not self.can_fix:
            self.report(original_node, self.MESSAGE, fixed=False)
            return updated_node
        if not self.report(original_node, "union wrapper dropped: v2 takes the member itself", fixed=True):
            return updated_node
        return updated_node.args[0].value

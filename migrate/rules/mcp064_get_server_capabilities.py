"""MCP064 get-server-capabilities: ``session.get_server_capabilities()`` -> ``session.server_capabilities``."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SESSION_CLASS


class Rule(CallDetector):
    META = RuleMeta("MCP064", "get-server-capabilities", Kind.REQUIRED, Safety.SAFE,
                    "`session.get_server_capabilities()` -> `session.server_capabilities`",
                    "clientsessionget_server_capabilities-replaced-by-era-neutral-accessors")
    TRIGGERS = ("get_server_capabilities",)
    METHODS = frozenset({"get_server_capabilities"})
    RECEIVERS = SESSION_CLASS

    def visit_Call(self, node: cst.Call) -> None:
        return None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = updated_node.func
        if updated_node.args or not isinstance(func, cst.Attribute) or not self.is_site(original_node):
            return updated_node
        if self.report(original_node, "now a property: `server_capabilities`", fixed=True):
            return func.with_changes(attr=cst.Name("server_capabilities"))
        return updated_node

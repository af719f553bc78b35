"""MCP038 private-lowlevel-attr: ``server._mcp_server`` -> ``server._lowlevel_server``.

Decorator registrations through it are handled first by MCP007 (adapter); this rule renames the
attribute itself. Safe when the receiver is provably an MCP server instance (built from the
server class in this file or annotated with it); otherwise renamed with a review marker.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP038", "private-lowlevel-attr", Kind.REQUIRED, Safety.REVIEW,
        "`server._mcp_server` -> `server._lowlevel_server`", "registering-lowlevel-handlers-from-mcpserver",
    )
    TRIGGERS = ("_mcp_server",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.servers: set[str] = set()
        self.sdk_file = False

    def visit_Module(self, node: cst.Module) -> None:
        self.sdk_file = "mcp.server" in self.ctx.code

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and self.resolves_to(node.value.func, SERVER_CLASS):
            self.servers.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    def visit_Param(self, node: cst.Param) -> None:
        annotation = node.annotation.annotation if node.annotation else None
        if annotation is not None:
            base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            if self.resolves_to(base, SERVER_CLASS):
                self.servers.add(node.name.value)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        if updated_node.attr.value != "_mcp_server" or not self.sdk_file:
            return updated_node
        proven = isinstance(updated_node.value, cst.Name) and updated_node.value.value in self.servers
        if not self.can_fix and not proven:
            self.report(original_node, "`._mcp_server` -> `._lowlevel_server` if this is an MCP server", fixed=False)
            return updated_node
        message = "`._mcp_server` -> `._lowlevel_server`" + ("" if proven else " (receiver not proven an MCPServer)")
        if self.report(original_node, message, fixed=True, review=not proven):
            return updated_node.with_changes(attr=cst.Name("_lowlevel_server"))
        return updated_node

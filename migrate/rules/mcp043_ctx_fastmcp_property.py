"""MCP043 ctx-fastmcp-property: ``ctx.fastmcp`` -> ``ctx.mcp_server`` on receivers provably a
``Context`` (a parameter annotated with it)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS

RENAMES = {"fastmcp": "mcp_server", "_fastmcp": "_mcp_server"}


class Rule(CallDetector):
    META = RuleMeta("MCP043", "ctx-fastmcp-property", Kind.REQUIRED, Safety.SAFE,
                    "`ctx.fastmcp` -> `ctx.mcp_server` (and `ctx._fastmcp` -> `ctx._mcp_server`)",
                    "fastmcp-renamed-to-mcpserver")
    TRIGGERS = (".fastmcp", "._fastmcp")
    RECEIVERS = CONTEXT_CLASS

    def visit_Call(self, node: cst.Call) -> None:
        return None

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        new = RENAMES.get(updated_node.attr.value)
        if new is None or not isinstance(updated_node.value, cst.Name) or updated_node.value.value not in self.typed:
            return updated_node
        if self.report(original_node, f"`.{updated_node.attr.value}` -> `.{new}`", fixed=True):
            return updated_node.with_changes(attr=cst.Name(new))
        return updated_node

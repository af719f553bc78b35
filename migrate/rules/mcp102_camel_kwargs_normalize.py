"""MCP102 camel-kwargs-normalize (optional): camelCase constructor kwargs on ``mcp.types`` models ->
snake_case (``Tool(inputSchema=...)`` -> ``input_schema=``). v2 still accepts the aliases."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.camel import CAMEL_FIELDS, snake
from mcp_eras.migrate.rules._lib.type_fields import FIELDS
from mcp_eras.migrate.rules.base import RuleTransformer

REEXPORTERS = frozenset({"mcp", "mcp.server.fastmcp", "mcp.server.mcpserver"})


def _reexported(name: str) -> bool:
    """An ``mcp.types`` model re-exported by ``mcp`` or the server package (``from mcp.server.fastmcp import Icon``)."""
    module, _, cls = name.rpartition(".")
    return module in REEXPORTERS and cls in FIELDS


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP102",
        "camel-kwargs-normalize",
        Kind.OPTIONAL,
        Safety.SAFE,
        "camelCase constructor kwargs on MCP models -> snake_case (`Tool(inputSchema=...)` -> `input_schema=`)",
        "field-names-changed-from-camelcase-to-snake_case",
    )
    TRIGGERS = tuple(sorted(CAMEL_FIELDS))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not any(a.keyword and a.keyword.value in CAMEL_FIELDS for a in updated_node.args):
            return updated_node
        if not any(n.startswith("mcp.types.") or _reexported(n) for n in self.qnames(original_node.func)):
            return updated_node
        if not self.report(original_node, "camelCase keyword arguments -> snake_case", fixed=True):
            return updated_node
        args = [
            a.with_changes(keyword=cst.Name(snake(a.keyword.value)))
            if a.keyword and a.keyword.value in CAMEL_FIELDS else a
            for a in updated_node.args
        ]
        return updated_node.with_changes(args=args)

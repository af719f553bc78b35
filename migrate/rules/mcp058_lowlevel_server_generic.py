"""MCP058 lowlevel-server-generic: ``Server[L, R]`` -> ``Server[L]``."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER


class Rule(RuleTransformer):
    META = RuleMeta("MCP058", "lowlevel-server-generic", Kind.REQUIRED, Safety.SAFE, "`Server[L, R]` -> `Server[L]`",
                    "lowlevel-server-type-parameter-reduced-from-2-to-1")
    TRIGGERS = ("Server[",)

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if len(original_node.slice) != 2 or not self.resolves_to(original_node.value, LOWLEVEL_SERVER):
            return updated_node
        if not self.report(original_node, "lowlevel `Server` takes one type parameter", fixed=True):
            return updated_node
        first = updated_node.slice[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(slice=[first])

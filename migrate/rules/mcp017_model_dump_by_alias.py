"""MCP017 model-dump-by-alias: ``model_dump()``/``model_dump_json()`` on MCP models emit snake_case
keys in v2; ``by_alias=True`` restores the wire (camelCase) keys v1 produced. Provable receivers
only (guard G3: the project's own pydantic models are unaffected by v2)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.provenance import Provenance


class Rule(Provenance):
    META = RuleMeta("MCP017", "model-dump-by-alias", Kind.REQUIRED, Safety.REVIEW,
                    "`model_dump()` on MCP models emits snake_case keys -> add `by_alias=True`",
                    "field-names-changed-from-camelcase-to-snake_case")
    TRIGGERS = ("model_dump",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = updated_node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in ("model_dump", "model_dump_json")):
            return updated_node
        if any(a.keyword and a.keyword.value == "by_alias" for a in updated_node.args):
            return updated_node
        original_func = original_node.func
        if not isinstance(original_func, cst.Attribute) or not self.provable(original_func.value):
            return updated_node
        if not self.can_fix:
            self.report(original_node, "add by_alias=True to keep camelCase keys", fixed=False)
            return updated_node
        if not self.report(original_node, "by_alias=True keeps v1's camelCase keys (consider mode=\"json\")",
                           fixed=True):
            return updated_node
        args = list(updated_node.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        flag = cst.Arg(cst.Name("True"), keyword=cst.Name("by_alias"),
                       equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        return updated_node.with_changes(args=[*args, flag])

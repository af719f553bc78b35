"""Shared helper: turn positional arguments after the first into keywords of a v1 signature."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.rules.base import RuleTransformer


class PositionalToKeywords(RuleTransformer):
    CALLEES: frozenset[str] = frozenset()
    V1_POSITIONAL: tuple[str, ...] = ()  # parameter names after the first, in v1 order
    MESSAGE = ""

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        positional = [a for a in updated_node.args if a.keyword is None and not a.star]
        if len(positional) < 2 or not self.resolves_to(original_node.func, self.CALLEES):
            return updated_node
        if len(positional) - 1 > len(self.V1_POSITIONAL) or any(a.star for a in updated_node.args[:len(positional)]):
            self.report(original_node, "more positional arguments than v1 accepted: check this call", fixed=False)
            return updated_node
        if not self.report(original_node, self.MESSAGE, fixed=True):
            return updated_node
        args = list(updated_node.args)
        for i in range(1, len(positional)):
            args[i] = args[i].with_changes(
                keyword=cst.Name(self.V1_POSITIONAL[i - 1]),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            )
        return updated_node.with_changes(args=args)

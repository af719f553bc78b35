"""MCP224 resource-not-found-code: reading a missing resource now answers -32602 with ``data.uri``
(v1's FastMCP answered code 0). Reports comparisons of an error's ``.code`` with ``0`` in files
that use the SDK: they test for the old answer."""

from __future__ import annotations

import libcst as cst

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import RuleTransformer


def imports_mcp(rule: RuleTransformer) -> bool:
    table = rule.ctx.table()
    names = [q for group in table.imports.values() for q in group] + list(table.modules)
    return any(n == "mcp" or n.startswith("mcp.") for n in names)


def is_code_attr(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "code"


def int_value(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
        return -int(node.expression.value)
    return None


def compares_code_with(node: cst.Comparison, value: int) -> bool:
    """``<expr>.code == value`` / ``!=`` (either side)."""
    left = node.left
    for target in node.comparisons:
        if not isinstance(target.operator, (cst.Equal, cst.NotEqual)):
            continue
        right = target.comparator
        if (is_code_attr(left) and int_value(right) == value) or (is_code_attr(right) and int_value(left) == value):
            return True
        left = right
    return False


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP224",
        "resource-not-found-code",
        Kind.ADVISORY,
        Safety.REPORT,
        "Reading a missing resource answers -32602 with `data.uri` (was code 0)",
    )
    TRIGGERS = (".code",)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if compares_code_with(node, 0) and imports_mcp(self):
            self.report(node, "a missing resource now answers -32602 with data.uri (v1 FastMCP: code 0); update this check",
                        fixed=False)

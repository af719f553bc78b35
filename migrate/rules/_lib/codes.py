"""Helpers of the error-code advisories (MCP224, MCP226, MCP227): does a file use the SDK, and
does a comparison test ``<expr>.code`` against a given number."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.rules._lib.transformer import RuleTransformer


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

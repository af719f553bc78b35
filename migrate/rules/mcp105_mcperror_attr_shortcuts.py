"""MCP105 mcperror-attr-shortcuts (optional): ``e.error.code``/``.message``/``.data`` -> ``e.code``/...
where ``e`` is bound by ``except McpError as e`` (or ``MCPError``)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

ERRORS = frozenset({"mcp.McpError", "mcp.shared.exceptions.McpError", "mcp.MCPError", "mcp.shared.exceptions.MCPError"})
FIELDS = frozenset({"code", "message", "data"})


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP105",
        "mcperror-attr-shortcuts",
        Kind.OPTIONAL,
        Safety.SAFE,
        "`e.error.code`/`e.error.message`/`e.error.data` -> `e.code`/`e.message`/`e.data`",
        "mcperror-renamed-to-mcperror",
    )
    TRIGGERS = ("McpError", "MCPError")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.bound: set[str] = set()

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.type is not None and node.name is not None and isinstance(node.name.name, cst.Name):
            types = node.type.elements if isinstance(node.type, cst.Tuple) else [node.type]
            values = [t.value if isinstance(t, cst.Element) else t for t in types]
            if any(self.resolves_to(v, ERRORS) for v in values):
                self.bound.add(node.name.name.value)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        inner = updated_node.value
        if (
            updated_node.attr.value in FIELDS
            and isinstance(inner, cst.Attribute)
            and inner.attr.value == "error"
            and isinstance(inner.value, cst.Name)
            and inner.value.value in self.bound
            and self.report(original_node, f"`.error.{updated_node.attr.value}` -> `.{updated_node.attr.value}`",
                            fixed=True)
        ):
            return updated_node.with_changes(value=inner.value)
        return updated_node

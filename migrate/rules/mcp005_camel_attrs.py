"""MCP005 camel-attrs: camelCase attribute reads/writes on MCP models -> snake_case.

Only receivers provably of an ``mcp.types`` model are renamed (see ``provenance``), also as the
name given to ``hasattr``/``getattr``; dict keys, other strings, keyword arguments and the
project's own classes are never touched (guards G2/G3). A
camelCase field read on an unproven receiver in a file that uses ``mcp.types`` gets a marker.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.camel import CAMEL_FIELDS, snake
from mcp_eras.migrate.rules.provenance import Provenance


class Rule(Provenance):
    META = RuleMeta("MCP005", "camel-attrs", Kind.REQUIRED, Safety.REVIEW,
                    "camelCase attribute reads on MCP types -> snake_case (`result.isError` -> `result.is_error`)",
                    "field-names-changed-from-camelcase-to-snake_case")
    TRIGGERS = tuple(sorted(CAMEL_FIELDS))

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.own_fields: set[str] = set()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for stmt in node.body.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        self.own_fields.add(small.target.value)

    def uses_mcp(self) -> bool:
        return any(m == "mcp" or m.startswith("mcp.") for m in self.ctx.table().modules)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        name = updated_node.attr.value
        if name not in CAMEL_FIELDS or name in self.own_fields:
            return updated_node
        if name == "progressToken" and isinstance(original_node.value, cst.Attribute) and (
            original_node.value.attr.value == "meta"
        ):
            return updated_node  # RequestParamsMeta is a TypedDict now (MCP041)
        if not self.provable(original_node.value):
            if self.uses_mcp():
                self.report(original_node, f"if this is an MCP model, read `.{snake(name)}` (v2 fields are snake_case)",
                            fixed=False)
            return updated_node
        if not self.can_fix:
            self.report(original_node, f"`.{name}` -> `.{snake(name)}`", fixed=False)
            return updated_node
        if self.report(original_node, f"`.{name}` -> `.{snake(name)}`", fixed=True):
            return updated_node.with_changes(attr=cst.Name(snake(name)))
        return updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        """``hasattr(result, "isError")``/``getattr(...)`` on a provable model: the name is a field read too."""
        func = original_node.func
        table = self.ctx.table()
        if not (isinstance(func, cst.Name) and func.value in ("hasattr", "getattr")
                and func.value not in table.local and func.value not in table.imports):
            return updated_node
        if len(original_node.args) < 2 or any(a.keyword for a in original_node.args[:2]):
            return updated_node
        field = original_node.args[1].value
        name = field.evaluated_value if isinstance(field, cst.SimpleString) else None
        if not isinstance(name, str) or name not in CAMEL_FIELDS or name in self.own_fields:
            return updated_node
        if not self.provable(original_node.args[0].value):
            # v2 models have no camelCase attribute: getattr's default comes back, silently
            target = original_node.args[0].value
            if self.uses_mcp() and not (isinstance(target, cst.Name) and target.value in self.others):
                self.report(original_node, f"if this is an MCP model, pass {snake(name)!r} to `{func.value}` "
                            "(v2 fields are snake_case; the camelCase name is never found)", fixed=False)
            return updated_node
        if not self.can_fix:
            self.report(original_node, f"`{func.value}(..., {name!r})` -> {snake(name)!r}", fixed=False)
            return updated_node
        if not self.report(original_node, f"`{func.value}(..., {name!r})` -> {snake(name)!r}", fixed=True):
            return updated_node
        quote = field.quote if isinstance(field, cst.SimpleString) else '"'
        args = list(updated_node.args)
        args[1] = args[1].with_changes(value=cst.SimpleString(f"{quote}{snake(name)}{quote}"))
        return updated_node.with_changes(args=args)

"""MCP056 elicitation-result-isinstance: ``isinstance(r, ElicitationResult)`` raises ``TypeError``
in v2 (it is a ``TypeAliasType``): expand it to the tuple of its members."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

ALIASES = frozenset({"mcp.server.elicitation.ElicitationResult"})
MEMBERS = ("AcceptedElicitation", "DeclinedElicitation", "CancelledElicitation")


class Rule(RuleTransformer):
    META = RuleMeta("MCP056", "elicitation-result-isinstance", Kind.REQUIRED, Safety.SAFE,
                    "`isinstance(r, ElicitationResult)` -> the tuple of its member classes",
                    "isinstance-checks-against-elicitationresult-raise-typeerror")
    TRIGGERS = ("ElicitationResult",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not (isinstance(original_node.func, cst.Name) and original_node.func.value in ("isinstance", "issubclass")):
            return updated_node
        if len(original_node.args) != 2 or not self.resolves_to(original_node.args[1].value, ALIASES):
            return updated_node
        if not self.report(original_node, "isinstance() against the member classes of ElicitationResult", fixed=True):
            return updated_node
        elements = [cst.Element(cst.Name(m)) for m in MEMBERS]
        tuple_expr = cst.Tuple(
            [e.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for e in elements[:-1]]
            + [elements[-1]]
        )
        args = list(updated_node.args)
        args[1] = args[1].with_changes(value=tuple_expr)
        self.needs_import = True  # the member classes are imported once, in leave_Module
        return updated_node.with_changes(args=args)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        statement = f"from mcp.server.elicitation import {', '.join(MEMBERS)}\n"
        if not getattr(self, "needs_import", False) or statement in updated_node.code:
            return updated_node
        line = cst.parse_statement(statement)
        body = list(updated_node.body)
        position = 0
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Import | cst.ImportFrom):
                position = i + 1
        return updated_node.with_changes(body=[*body[:position], line, *body[position:]])

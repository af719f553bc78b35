"""MCP025 mcperror-constructor: ``McpError(ErrorData(code=..., message=...))`` ->
``MCPError(code=..., message=...[, data=...])``; any other single argument ->
``MCPError.from_error_data(x)`` (v2's constructor takes the fields, not an ``ErrorData``); v1's keyword
spelling ``McpError(error=...)`` alike."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

ERRORS = frozenset({"mcp.McpError", "mcp.shared.exceptions.McpError", "mcp.MCPError", "mcp.shared.exceptions.MCPError"})
ERROR_DATA = frozenset({"mcp.types.ErrorData"})
FIELDS = ("code", "message", "data")


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP025",
        "mcperror-constructor",
        Kind.REQUIRED,
        Safety.SAFE,
        "`McpError(ErrorData(code=..., message=...))` -> `MCPError(code, message[, data])` / `from_error_data(x)`",
        "mcperror-renamed-to-mcperror",
    )
    TRIGGERS = ("McpError(", "MCPError(")

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        keyword = original_node.args[0].keyword if len(original_node.args) == 1 else None
        if len(original_node.args) != 1 or (keyword and keyword.value != "error") or original_node.args[0].star:
            return updated_node
        if not self.resolves_to(original_node.func, ERRORS):
            return updated_node
        inner = original_node.args[0].value
        updated_inner = updated_node.args[0].value
        if isinstance(inner, cst.Call) and self.resolves_to(inner.func, ERROR_DATA):
            assert isinstance(updated_inner, cst.Call)
            keywords = [a for a in updated_inner.args if a.keyword and a.keyword.value in FIELDS]
            if len(keywords) != len(updated_inner.args) or {a.keyword.value for a in keywords} < {"code", "message"}:  # type: ignore[union-attr]
                self.report(original_node, "pass code=/message=/data= to MCPError directly", fixed=False)
                return updated_node
            if not self.report(original_node, "ErrorData fields passed to the constructor", fixed=True):
                return updated_node
            last = keywords[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated_node.with_changes(args=[*keywords[:-1], last])
        if isinstance(inner, cst.SimpleString | cst.FormattedString | cst.ConcatenatedString):
            self.report(original_node, "MCPError takes (code, message[, data]) in v2", fixed=False)
            return updated_node
        if not self.report(original_node, "-> MCPError.from_error_data(...)", fixed=True):
            return updated_node
        return updated_node.with_changes(func=cst.Attribute(value=updated_node.func, attr=cst.Name("from_error_data")))

"""MCP067 timeout-code-408: request timeouts are no longer reported as error code 408, so
``e.error.code == 408`` style checks silently never match.

In a file that handles the SDK's error type, the 408 side of an ``<x>.code ==/!= 408`` comparison
(or ``httpx.codes.REQUEST_TIMEOUT``) becomes ``REQUEST_TIMEOUT`` from ``mcp.types`` (-32001), with
a note; any other shape keeps a marker.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import add_imports
from mcp_eras.migrate.rules.base import RuleTransformer

IMPORT = "from mcp.types import REQUEST_TIMEOUT\n"


def _timeout(node: cst.BaseExpression) -> bool:
    return (isinstance(node, cst.Integer) and node.value == "408") or (
        isinstance(node, cst.Attribute) and node.attr.value == "REQUEST_TIMEOUT")


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP067",
        "timeout-code-408",
        Kind.REQUIRED,
        Safety.REVIEW,
        "Timeout detection by `e.error.code == 408` / `httpx.codes.REQUEST_TIMEOUT` silently never matches",
        "client-request-timeouts-now-raise-32001-request_timeout-instead-of-408",
    )
    TRIGGERS = ("408", "REQUEST_TIMEOUT")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fixed = False

    def leave_Comparison(self, original_node: cst.Comparison, updated_node: cst.Comparison) -> cst.Comparison:
        sides = [original_node.left, *(t.comparator for t in original_node.comparisons)]
        code_side = any(isinstance(s, cst.Attribute) and s.attr.value == "code" for s in sides)
        if not (code_side and any(_timeout(s) for s in sides)
                and ("McpError" in self.ctx.code or "MCPError" in self.ctx.code)):
            return updated_node
        simple = len(original_node.comparisons) == 1 and isinstance(
            original_node.comparisons[0].operator, cst.Equal | cst.NotEqual)
        bound = self.ctx.table().imports.get("REQUEST_TIMEOUT")
        clash = "REQUEST_TIMEOUT" in self.ctx.table().local or (bound and bound != {"mcp.types.REQUEST_TIMEOUT"})
        if not simple or clash or not self.can_fix:
            self.report(original_node, "timeouts no longer carry code 408: compare with mcp.types.REQUEST_TIMEOUT "
                                       "(-32001)", fixed=False)
            return updated_node
        if not self.report(original_node, "408 -> REQUEST_TIMEOUT (-32001), the code v2 raises for a request timeout",
                           fixed=True, review=True):
            return updated_node
        self.fixed = True
        name = cst.Name("REQUEST_TIMEOUT")
        if _timeout(updated_node.left):
            return updated_node.with_changes(left=name)
        target = updated_node.comparisons[0]
        return updated_node.with_changes(comparisons=[target.with_changes(comparator=name)])

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return add_imports(updated_node, [IMPORT]) if self.fixed else updated_node

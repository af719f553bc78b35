"""MCP067 timeout-code-408: request timeouts are no longer reported as error code 408, so
``e.error.code == 408`` style checks silently never match."""

from __future__ import annotations

import libcst as cst

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import RuleTransformer


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP067",
        "timeout-code-408",
        Kind.REQUIRED,
        Safety.REPORT,
        "Timeout detection by `e.error.code == 408` / `httpx.codes.REQUEST_TIMEOUT` silently never matches",
        "client-request-timeouts-now-raise-32001-request_timeout-instead-of-408",
    )
    TRIGGERS = ("408", "REQUEST_TIMEOUT")

    def visit_Comparison(self, node: cst.Comparison) -> None:
        sides = [node.left, *(t.comparator for t in node.comparisons)]
        code_side = any(isinstance(s, cst.Attribute) and s.attr.value == "code" for s in sides)
        timeout = any(
            (isinstance(s, cst.Integer) and s.value == "408")
            or (isinstance(s, cst.Attribute) and s.attr.value == "REQUEST_TIMEOUT")
            for s in sides
        )
        if code_side and timeout and ("McpError" in self.ctx.code or "MCPError" in self.ctx.code):
            self.report(node, "timeouts no longer carry code 408: catch the timeout exception the client raises",
                        fixed=False)

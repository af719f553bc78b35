"""MCP233 mcp-param-headers: tools declaring ``x-mcp-header`` annotations are header-validated at
2026-07-28."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP233",
        "mcp-param-headers",
        Kind.ADVISORY,
        Safety.REPORT,
        "Tools declaring `x-mcp-header` annotations are header-validated at 2026-07-28",
        "servers-validate-mcp-param-headers-against-the-request-body-sep-2243",
    )
    TRIGGERS = ("x-mcp-header",)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if node.evaluated_value == "x-mcp-header":
            self.report(node, "x-mcp-header parameters are validated against the request headers at 2026-07-28", fixed=False)

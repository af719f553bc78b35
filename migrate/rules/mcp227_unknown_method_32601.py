"""MCP227 unknown-method-32601: unknown request methods answer -32601 (Method not found) in v2;
v1 answered -32602. Reports comparisons of an error's ``.code`` with the literal ``-32602`` in files
that use the SDK (typically tests pinning the old answer)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.codes import compares_code_with, imports_mcp
from mcp_eras.migrate.rules.base import RuleTransformer


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP227",
        "unknown-method-32601",
        Kind.ADVISORY,
        Safety.REPORT,
        "Unknown methods answer -32601 (was -32602)",
        "unknown-request-methods-now-return-32601-method-not-found",
    )
    TRIGGERS = ("32602",)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if compares_code_with(node, -32602) and imports_mcp(self):
            self.report(node, "unknown methods now answer -32601 (v1: -32602); if this checks an unknown-method "
                              "answer, expect -32601", fixed=False)

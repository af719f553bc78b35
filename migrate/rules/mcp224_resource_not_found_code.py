"""MCP224 resource-not-found-code: reading a missing resource now answers -32602 with ``data.uri``
(v1's FastMCP answered code 0). Reports comparisons of an error's ``.code`` with ``0`` in files
that use the SDK: they test for the old answer."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.codes import compares_code_with, imports_mcp
from mcp_eras.migrate.rules.base import RuleTransformer


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP224",
        "resource-not-found-code",
        Kind.ADVISORY,
        Safety.REPORT,
        "Reading a missing resource answers -32602 with `data.uri` (was code 0)",
        "resource-not-found-returns-32602-and-resource-lookups-raise-typed-exceptions-sep-2164",
    )
    TRIGGERS = (".code",)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if compares_code_with(node, 0) and imports_mcp(self):
            self.report(node, "a missing resource now answers -32602 with data.uri (v1 FastMCP: code 0); update this check",
                        fixed=False)

"""MCP220 extra-fields-dropped (advisory): v1's MCP models accepted unknown keyword arguments
(``extra="allow"``) and sent them on the wire; v2's drop them silently (python-sdk
``docs/migration.md`` § "Extra fields on MCP types are no longer preserved"). A keyword that is not a
field (or alias) of the ``mcp.types`` class being constructed is reported: carry it in ``_meta``."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.type_fields import FIELDS
from mcp_eras.migrate.rules.base import RuleTransformer


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP220",
        "extra-fields-dropped",
        Kind.ADVISORY,
        Safety.REPORT,
        "Unknown kwargs on MCP types are silently dropped (v1 `extra=\"allow\"` sent them)",
        "extra-fields-on-mcp-types-are-no-longer-preserved",
    )
    TRIGGERS = ("mcp",)

    def visit_Call(self, node: cst.Call) -> None:
        keywords = [a.keyword.value for a in node.args if a.keyword is not None]
        if not keywords:
            return
        for name in self.qnames(node.func):
            module, _, cls = name.rpartition(".")
            if module == "mcp.types" and cls in FIELDS:
                unknown = [k for k in keywords if k not in FIELDS[cls]]
                if unknown:
                    self.report(node, f"{cls}({', '.join(f'{k}=' for k in unknown)}): not a field in v2, so "
                                      "dropped instead of sent: pass it in _meta={...}", fixed=False)
                return

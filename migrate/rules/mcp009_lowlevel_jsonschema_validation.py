"""MCP009 lowlevel-jsonschema-validation: v1 validated ``call_tool`` arguments (and structured
output) against the listed tool schemas; v2 does not. MCP007's adapter keeps the validation."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.lowlevel_semantics import LowlevelSemantics


class Rule(LowlevelSemantics):
    META = RuleMeta(
        "MCP009",
        "lowlevel-jsonschema-validation",
        Kind.REQUIRED,
        Safety.REVIEW,
        "v1 `call_tool` validated arguments (and structured output) against the listed tool schemas; v2 does not",
        "lowlevel-server-decorator-based-handlers-replaced-with-constructor-on_-params",
    )
    TRIGGERS = ("call_tool",)
    KINDS = frozenset({"call_tool"})
    KEPT = "v1 input/output schema validation kept by the MCP007 adapter"
    LOST = "v2 does not validate tool arguments/structured output against the listed schemas: validate in the handler"

    def skip_unvalidated(self, call: cst.Call) -> bool:
        flag = next(a.value for a in call.args if a.keyword and a.keyword.value == "validate_input")
        return isinstance(flag, cst.Name) and flag.value == "False"

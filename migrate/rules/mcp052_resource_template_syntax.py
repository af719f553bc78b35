"""MCP052 resource-template-syntax: templates that v2 rejects at decoration time (adjacent
variables ``{a}{b}``, duplicate names) are reported with the reason."""

from __future__ import annotations

import re

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS

VARIABLE = re.compile(r"\{[+#./;?&]?([^}]*)\}")


def problem(template: str) -> str | None:
    if "}{" in template:
        return "adjacent template variables need a literal or operator between them"
    names = [n.strip().rstrip("*") for group in VARIABLE.findall(template) for n in group.split(",")]
    if len(names) != len(set(names)):
        return "a template variable name is used twice"
    return None


class Rule(CallDetector):
    META = RuleMeta(
        "MCP052",
        "resource-template-syntax",
        Kind.REQUIRED,
        Safety.REPORT,
        "Resource templates that now fail at decoration time (adjacent variables, duplicate names)",
        "resource-templates-matching-behavior-changes",
    )
    TRIGGERS = (".resource(",)
    METHODS = frozenset({"resource"})
    RECEIVERS = SERVER_CLASS

    def visit_Call(self, node: cst.Call) -> None:
        if not self.is_site(node) or not node.args or not isinstance(node.args[0].value, cst.SimpleString):
            return
        value = node.args[0].value.evaluated_value
        reason = problem(value) if isinstance(value, str) else None
        if reason:
            self.report(node, f"v2 rejects this template at decoration time: {reason}", fixed=False)

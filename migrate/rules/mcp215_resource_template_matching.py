"""MCP215 resource-template-matching: template matching changed: path-safety checks on, literal
delimiters exact, ``{var}`` matches empty."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP215",
        "resource-template-matching",
        Kind.ADVISORY,
        Safety.REPORT,
        "Template matching: path-safety checks on by default, literal `.` and delimiters exact, `{var}` matches empty",
        "resource-templates-matching-behavior-changes",
    )
    TRIGGERS = ("{",)
    METHODS = frozenset(
        {
            "resource",
        }
    )
    RECEIVERS = SERVER_CLASS
    MESSAGE = "resource template matching changed (path-safety checks, exact delimiters, {var} may match empty): re-test this URI"

    def is_site(self, node: cst.Call) -> bool:
        if not super().is_site(node) or not node.args:
            return False
        first = node.args[0].value
        return isinstance(first, cst.SimpleString) and "{" in str(first.evaluated_value)

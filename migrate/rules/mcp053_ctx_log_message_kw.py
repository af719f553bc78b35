"""MCP053 ctx-log-message-kw: ``ctx.log(level=..., message=...)`` / ``ctx.info(message=...)`` -> ``data=``."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import KeywordEdit
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS


class Rule(KeywordEdit):
    META = RuleMeta(
        "MCP053", "ctx-log-message-kw", Kind.REQUIRED, Safety.REVIEW,
        '`ctx.log(level=..., message=...)` / `ctx.info(message=..., extra=...)` -> `data=`',
        'mcpservers-context-logging-message-renamed-to-data-extra-removed',
    )
    TRIGGERS = ("message=",)
    METHODS = frozenset({"log", "debug", "info", "warning", "error"})
    RECEIVERS = CONTEXT_CLASS
    RENAME_KW = {"message": "data"}
    MESSAGE = "`message=` -> `data=`"

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if any(a.keyword and a.keyword.value == "extra" for a in original_node.args) and self.is_site(original_node):
            self.report(original_node, "`extra=` was removed (v1 raised TypeError on it): fold it into `data=`",
                        fixed=False)
            return updated_node
        return super().leave_Call(original_node, updated_node)

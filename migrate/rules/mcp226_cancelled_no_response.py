"""MCP226 cancelled-no-response: a cancelled request gets no response in v2 (2025 Streamable HTTP:
-32800). Reports hand-sent ``notifications/cancelled`` (the string, or ``CancelledNotification``)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.codes import imports_mcp
from mcp_eras.migrate.rules.base import RuleTransformer

NAMES = frozenset({"mcp.types.CancelledNotification", "mcp.types.CancelledNotificationParams"})
MESSAGE = "a cancelled request is no longer answered: code awaiting the cancelled call's response must stop waiting"


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP226",
        "cancelled-no-response",
        Kind.ADVISORY,
        Safety.REPORT,
        "Cancelled requests get no response (2025 streamable HTTP: -32800)",
        "cancelled-requests-are-no-longer-answered",
    )
    TRIGGERS = ("notifications/cancelled", "CancelledNotification")

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if node.evaluated_value == "notifications/cancelled" and imports_mcp(self):
            self.report(node, MESSAGE, fixed=False)

    def visit_Call(self, node: cst.Call) -> None:
        if self.resolves_to(node.func, NAMES):
            self.report(node, MESSAGE, fixed=False)

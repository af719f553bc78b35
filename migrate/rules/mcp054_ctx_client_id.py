"""MCP054 ctx-client-id: ``ctx.client_id`` was removed."""

from __future__ import annotations

import libcst as cst

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import CallDetector
from migrate.rules.sdk import CONTEXT_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP054",
        "ctx-client-id",
        Kind.REQUIRED,
        Safety.REPORT,
        "`ctx.client_id` removed",
        "contextclient_id-removed",
    )
    TRIGGERS = ("client_id",)
    RECEIVERS = CONTEXT_CLASS
    MESSAGE = "ctx.client_id was removed: use get_access_token().client_id (auth) or ctx.request_context.meta"

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        if (
            original_node.attr.value == "client_id"
            and isinstance(original_node.value, cst.Name)
            and (original_node.value.value in self.typed)
        ):
            self.report(original_node, self.MESSAGE, fixed=False)
        return updated_node

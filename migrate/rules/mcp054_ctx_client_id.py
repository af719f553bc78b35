"""MCP054 ctx-client-id: ``ctx.client_id`` was removed.

A read on a provable ``Context`` becomes v1's own expression, the client id from the request
``_meta`` (``(ctx.request_context.meta or {}).get("client_id")``), with a note: what callers usually
meant is the authenticated client, ``get_access_token().client_id``. Writes keep a marker.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP054",
        "ctx-client-id",
        Kind.REQUIRED,
        Safety.REVIEW,
        "`ctx.client_id` removed",
        "contextclient_id-removed",
    )
    TRIGGERS = ("client_id",)
    RECEIVERS = CONTEXT_CLASS
    MESSAGE = "ctx.client_id was removed: use get_access_token().client_id (auth) or ctx.request_context.meta"

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if not (original_node.attr.value == "client_id" and isinstance(original_node.value, cst.Name)
                and original_node.value.value in self.typed):
            return updated_node
        parent = self.parent()
        written = isinstance(parent, cst.AssignTarget | cst.AugAssign) or (
            isinstance(parent, cst.Attribute) and parent.value is original_node)
        if written or not self.can_fix:
            self.report(original_node, self.MESSAGE, fixed=False)
            return updated_node
        if not self.report(original_node, "-> v1's value, the client id in the request _meta; you probably "
                                          "meant get_access_token().client_id", fixed=True, review=True):
            return updated_node
        ctx = original_node.value.value
        return cst.parse_expression(f'({ctx}.request_context.meta or {{}}).get("client_id")')

"""MCP041 requestparams-meta: ``RequestParams.Meta`` model -> ``RequestParamsMeta`` TypedDict.

``ctx.request_context.meta.progressToken`` (``ctx`` a ``Context`` parameter) and ``rc.meta.progressToken``
(``rc`` a ``RequestContext``) become ``.meta.get("progress_token")``; constructions of the old model
keep a marker.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS

REQUEST_CONTEXT = frozenset({"mcp.shared.context.RequestContext", "mcp.server.context.ServerRequestContext"})


class Rule(Detector):
    META = RuleMeta(
        "MCP041",
        "requestparams-meta",
        Kind.REQUIRED,
        Safety.REVIEW,
        "`RequestParams.Meta` model -> `RequestParamsMeta` TypedDict",
        "requestparamsmeta-replaced-with-requestparamsmeta-typeddict",
    )
    TRIGGERS = ("Meta", "progressToken")
    NAMES = frozenset({"mcp.types.NotificationParams.Meta", "mcp.types.RequestParams.Meta"})
    MESSAGE = "RequestParams.Meta is a TypedDict now (RequestParamsMeta): build a dict, read keys with .get('progress_token')"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.contexts: set[str] = set()
        self.request_contexts: set[str] = set()

    def visit_Param(self, node: cst.Param) -> None:
        annotation = node.annotation.annotation if node.annotation else None
        base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
        if base is not None and self.resolves_to(base, CONTEXT_CLASS):
            self.contexts.add(node.name.value)
        elif base is not None and self.resolves_to(base, REQUEST_CONTEXT):
            self.request_contexts.add(node.name.value)

    def _provable_meta(self, node: cst.BaseExpression) -> bool:
        """``<Context>.request_context.meta`` or ``<RequestContext>.meta``."""
        if not (isinstance(node, cst.Attribute) and node.attr.value == "meta"):
            return False
        owner = node.value
        if isinstance(owner, cst.Name):
            return owner.value in self.request_contexts
        return (isinstance(owner, cst.Attribute) and owner.attr.value == "request_context"
                and isinstance(owner.value, cst.Name) and owner.value.value in self.contexts)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if original_node.attr.value != "progressToken" or not self._provable_meta(original_node.value):
            return updated_node
        if isinstance(self.parent(), cst.AssignTarget) or not self.can_fix:
            self.report(original_node, self.MESSAGE, fixed=False)
            return updated_node
        if not self.report(original_node, '`.meta.progressToken` -> `.meta.get("progress_token")` (a TypedDict now)',
                           fixed=True):
            return updated_node
        return cst.Call(cst.Attribute(updated_node.value, cst.Name("get")), [cst.Arg(cst.SimpleString('"progress_token"'))])

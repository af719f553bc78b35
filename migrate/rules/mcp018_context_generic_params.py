"""MCP018 context-generic-params: ``Context[ServerSession, L(, R)]`` -> ``Context[L(, R)]``.

``Context[ServerSession, None]``/``Context[ServerSession, Any]`` collapse to bare ``Context``.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import drop_unused
from mcp_eras.migrate.rules.base import RuleTransformer, dotted
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS

SERVER_SESSION = frozenset({"mcp.server.session.ServerSession", "mcp.server.ServerSession"})
SESSION_IMPORTS = {"mcp.server.session": frozenset({"ServerSession"}), "mcp.server": frozenset({"ServerSession"})}


class Rule(RuleTransformer):
    META = RuleMeta("MCP018", "context-generic-params", Kind.REQUIRED, Safety.SAFE,
                    "`Context[ServerSession, L(, R)]` -> `Context[L(, R)]` (bare `Context` when L is None/Any)",
                    "requestcontext-type-parameters-simplified")
    TRIGGERS = ("Context[",)

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if not self.resolves_to(original_node.value, CONTEXT_CLASS) or len(original_node.slice) < 2:
            return updated_node
        first = original_node.slice[0].slice
        if not isinstance(first, cst.Index) or not self.resolves_to(first.value, SERVER_SESSION):
            return updated_node
        if not self.report(original_node, "drop the `ServerSession` type argument of `Context`", fixed=True):
            return updated_node
        rest = list(updated_node.slice[1:])
        lifespan = rest[0].slice
        bare = (
            len(rest) == 1
            and isinstance(lifespan, cst.Index)
            and (dotted(lifespan.value) == "None" or self.resolves_to(lifespan.value, {"typing.Any"}))
        )
        if bare:
            return updated_node.value
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(slice=rest)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not any(f.rule == self.META.id and f.status == "fixed" for f in self.ctx.findings):
            return updated_node
        return drop_unused(updated_node, SESSION_IMPORTS)  # the hand ports drop it too

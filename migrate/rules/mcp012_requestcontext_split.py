"""MCP012 requestcontext-split: ``mcp.shared.context.RequestContext[...]`` -> the split classes.

``RequestContext[ClientSession, ...]`` -> bare ``ClientRequestContext`` (not subscriptable);
``RequestContext[ServerSession, L(, R)]`` -> ``ServerRequestContext[L(, R)]``. The new class is
imported next to the old import (which stays while other names use it); other shapes get a marker.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import add_imports, drop_unused
from mcp_eras.migrate.rules.base import RuleTransformer

OLD = frozenset({"mcp.shared.context.RequestContext"})
CLIENT = frozenset({"mcp.ClientSession", "mcp.client.session.ClientSession"})
SERVER = frozenset({"mcp.server.session.ServerSession", "mcp.server.ServerSession"})
IMPORTS = {
    "ClientRequestContext": "from mcp.client.context import ClientRequestContext\n",
    "ServerRequestContext": "from mcp.server.context import ServerRequestContext\n",
}


class Rule(RuleTransformer):
    META = RuleMeta("MCP012", "requestcontext-split", Kind.REQUIRED, Safety.SAFE,
                    "`RequestContext[...]` -> `ClientRequestContext` / `ServerRequestContext[L, R]`",
                    "requestcontext-type-parameters-simplified")
    TRIGGERS = ("RequestContext",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.needed: set[str] = set()

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> cst.BaseExpression:
        if not self.resolves_to(original_node.value, OLD):
            return updated_node
        first = original_node.slice[0].slice
        session = first.value if isinstance(first, cst.Index) else None
        if isinstance(session, cst.SimpleString):  # RequestContext["ClientSession", Any]: a forward reference
            session = self._forward(session)
        if session is not None and self.resolves_to(session, CLIENT):
            if self.report(original_node, "-> `ClientRequestContext`", fixed=True):
                self.needed.add("ClientRequestContext")
                return cst.Name("ClientRequestContext")
            return updated_node
        if session is not None and self.resolves_to(session, SERVER) and len(updated_node.slice) > 1:
            if self.report(original_node, "-> `ServerRequestContext[...]` without the session argument", fixed=True):
                self.needed.add("ServerRequestContext")
                rest = list(updated_node.slice[1:])
                rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                return cst.Subscript(value=cst.Name("ServerRequestContext"), slice=rest)
            return updated_node
        self.report(original_node, "RequestContext was split: use ClientRequestContext (client callbacks) or "
                                   "ServerRequestContext[L, R]", fixed=False)
        return updated_node

    def _forward(self, text: cst.SimpleString) -> cst.BaseExpression | None:
        """The name a string annotation spells, resolved through this file's imports (a dotted name
        bound by an import statement: the only forward references the import table can vouch for)."""
        value = text.evaluated_value
        if not isinstance(value, str) or not value.replace(".", "").isidentifier():
            return None
        expr = cst.parse_expression(value)
        return expr if self.ctx.table().qualified(expr) else None

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        missing = [IMPORTS[n] for n in sorted(self.needed) if IMPORTS[n] not in updated_node.code]
        if not missing:
            return updated_node
        updated_node = drop_unused(updated_node, {"mcp.shared.context": frozenset({"RequestContext"})})
        return add_imports(updated_node, missing)

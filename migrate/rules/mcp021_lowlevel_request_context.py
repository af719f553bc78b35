"""MCP021 lowlevel-request-context: v1's ``request_ctx`` context variable is gone; v2 hands each
handler its ``ctx`` (python-sdk ``docs/migration.md`` § "Lowlevel Server: request_context property
removed"). ``server.request_context`` reads are rewritten by MCP007 together with the handlers.

In a file whose lowlevel handlers go through MCP007's v1 adapter (the adapter is there, or MCP007
adds it in this run), ``request_ctx.get()`` -> ``_mcp_v1_request_context()``: the adapter sets that
variable to the v2 ``ctx`` of the request being served, so the read keeps v1's meaning (and raises
``LookupError`` outside a request, as v1 did). Review: v2's ``ServerRequestContext`` is not v1's
``RequestContext`` attribute for attribute. The ``request_ctx`` import goes once nothing uses it.
Anywhere else the site is reported (thread the handler's ``ctx`` through by hand).
"""

from __future__ import annotations

import re

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import drop_unused
from mcp_eras.migrate.rules._lib.lowlevel import LowlevelTracking
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import dotted
from mcp_eras.migrate.rules.lowlevel_adapter import ADAPTER_MARK

VARIABLES = frozenset({"mcp.server.lowlevel.request_ctx", "mcp.server.lowlevel.server.request_ctx"})
GETTERS = frozenset(f"{v}.get" for v in VARIABLES)
SETTERS = frozenset(f"{v}.{m}" for v in VARIABLES for m in ("set", "reset"))


class Rule(LowlevelTracking):
    META = RuleMeta(
        "MCP021",
        "lowlevel-request-context",
        Kind.REQUIRED,
        Safety.REVIEW,
        "`server.request_context` / `request_ctx.get()` -> the handler's `ctx` argument",
        "lowlevel-server-request_context-property-removed",
    )
    TRIGGERS = ("request_ctx",)
    MESSAGE = "request_ctx is gone in v2: use the ctx your v2 handler receives (thread it through to this code)"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.adapted = False
        self.rewrote = False

    def visit_Module(self, node: cst.Module) -> None:
        """Will this file have MCP007's adapter? (Computed before the pass: MCP007 adds it at the end.)"""
        if ADAPTER_MARK in self.ctx.code:
            self.adapted = True
            return
        if "MCP007" not in self.ctx.selected or not self.can_fix:
            return
        for current in walk(node):
            if isinstance(current, cst.Assign):
                LowlevelTracking.visit_Assign(self, current)
            elif isinstance(current, cst.Param):
                LowlevelTracking.visit_Param(self, current)
            if isinstance(current, cst.FunctionDef) and any(self._decorator_kind(d) for d in current.decorators):
                self.adapted = True
            elif isinstance(current, cst.Attribute) and current.attr.value == "request_context" and isinstance(
                    current.value, cst.Name) and current.value.value in self.servers:
                self.adapted = True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        """The import itself fails under v2 (``ImportError``): marked unless every use is a ``get()`` this
        run rewrites (then the import goes with them)."""
        if dotted(node.module) in ("mcp.server.lowlevel", "mcp.server.lowlevel.server") and not isinstance(
                node.names, cst.ImportStar) and any(dotted(a.name) == "request_ctx" for a in node.names):
            if not self.adapted or re.search(r"\brequest_ctx\s*\.\s*(set|reset)\b", self.ctx.code):
                self.report(node, "request_ctx is gone in v2 (this import raises ImportError): use the ctx your "
                                  "v2 handler receives", fixed=False)
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        return None  # the servers were found in visit_Module

    def visit_Param(self, node: cst.Param) -> None:
        return None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if self.resolves_to(original_node.func, SETTERS):
            self.report(original_node, self.MESSAGE, fixed=False)
            return updated_node
        if not self.resolves_to(original_node.func, GETTERS):
            return updated_node
        if not self.adapted or original_node.args:
            self.report(original_node, self.MESSAGE, fixed=False)
            return updated_node
        if not self.report(original_node, "the v1 context variable -> _mcp_v1_request_context(), the v2 ctx of the request "
                                          "being served (ServerRequestContext); check the attributes you read",
                           fixed=True, review=True):
            return updated_node
        self.rewrote = True
        return cst.Call(func=cst.Name("_mcp_v1_request_context"))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self.rewrote:
            return updated_node
        return drop_unused(updated_node, {"mcp.server.lowlevel": frozenset({"request_ctx"}),
                                          "mcp.server.lowlevel.server": frozenset({"request_ctx"})})

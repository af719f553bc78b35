"""MCP031 clientsession-not-entered: requests on a ``ClientSession`` that was never entered with
``async with`` raise ``RuntimeError`` immediately in v2 (v1 let some of them through)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector

SESSIONS = frozenset({"mcp.ClientSession", "mcp.client.session.ClientSession"})


class Rule(CallDetector):
    META = RuleMeta(
        "MCP031",
        "clientsession-not-entered",
        Kind.REQUIRED,
        Safety.REPORT,
        "Requests on a `ClientSession` that was never entered (`async with`) now raise `RuntimeError`",
        "clientsession-now-runs-on-jsonrpcdispatcher-basesession-removed",
    )
    TRIGGERS = ("ClientSession(",)
    MESSAGE = "a ClientSession must be entered (async with / enter_async_context) before any request in v2"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.entered: set[int] = set()

    def visit_WithItem(self, node: cst.WithItem) -> None:
        self.entered.add(id(node.item))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ("enter_async_context", "enter_context"):
            self.entered.update(id(a.value) for a in node.args)
            return
        if id(node) in self.entered or not self.resolves_to(func, SESSIONS):
            return
        parent = self.parent()
        if isinstance(parent, cst.Arg | cst.Return):
            return  # handed elsewhere: entered (or not) by the receiver
        self.report(node, self.MESSAGE, fixed=False)

"""MCP203 sync-handlers-worker-thread: plain ``def`` tools/resources/prompts run in a worker thread
in v2 (concurrency, thread affinity, no running event loop). Decorated handlers, and a module's own
plain ``def`` registered with ``<server>.add_tool(fn)``."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS

DECORATORS = frozenset({"tool", "resource", "prompt"})


class Rule(CallDetector):
    META = RuleMeta(
        "MCP203",
        "sync-handlers-worker-thread",
        Kind.ADVISORY,
        Safety.REPORT,
        "`def` tools/resources/prompts run in a worker thread (concurrency, thread affinity, no running loop)",
        "sync-handler-functions-now-run-on-a-worker-thread",
    )
    TRIGGERS = (".tool(", ".resource(", ".prompt(", ".add_tool(")
    RECEIVERS = SERVER_CLASS
    MESSAGE = "sync handler: v2 runs it in a worker thread (concurrently, no running event loop); make it async if that matters"

    def visit_Module(self, node: cst.Module) -> None:
        defs = [stmt for stmt in node.body if isinstance(stmt, cst.FunctionDef)]
        names = [d.name.value for d in defs]
        self.sync_defs = {d.name.value for d in defs if d.asynchronous is None and names.count(d.name.value) == 1}

    def visit_Call(self, node: cst.Call) -> None:
        func, args = node.func, node.args
        if (isinstance(func, cst.Attribute) and func.attr.value == "add_tool" and args and args[0].keyword is None
                and isinstance(args[0].value, cst.Name) and args[0].value.value in getattr(self, "sync_defs", ())
                and self.receiver_typed(func.value)):
            self.report(node, self.MESSAGE, fixed=False)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.asynchronous is not None:
            return
        for decorator in node.decorators:
            call = decorator.decorator
            target = call.func if isinstance(call, cst.Call) else call
            if isinstance(target, cst.Attribute) and target.attr.value in DECORATORS and self.receiver_typed(target.value):
                self.report(node, self.MESSAGE, fixed=False)
                return

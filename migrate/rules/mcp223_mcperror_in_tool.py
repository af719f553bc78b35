"""MCP223 mcperror-in-tool: ``raise McpError(...)`` inside an ``@mcp.tool()`` becomes a JSON-RPC
error in v2 (v1 turned it into an ``isError`` result)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS

ERRORS = frozenset({"mcp.McpError", "mcp.shared.exceptions.McpError", "mcp.MCPError", "mcp.shared.exceptions.MCPError"})


class Rule(CallDetector):
    META = RuleMeta(
        "MCP223",
        "mcperror-in-tool",
        Kind.ADVISORY,
        Safety.REPORT,
        "`raise McpError(...)` inside `@mcp.tool()` becomes a JSON-RPC error (v1: isError result)",
        "mcperror-raised-from-an-mcptool-handler-now-surfaces-as-a-json-rpc-error",
    )
    TRIGGERS = ("McpError", "MCPError")
    RECEIVERS = SERVER_CLASS
    MESSAGE = "raising MCPError in a tool now answers a JSON-RPC error (v1 returned an isError result)"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.in_tool = 0

    def visit_Call(self, node: cst.Call) -> None:
        return None

    def _is_tool(self, node: cst.FunctionDef) -> bool:
        for decorator in node.decorators:
            call = decorator.decorator
            target = call.func if isinstance(call, cst.Call) else call
            if isinstance(target, cst.Attribute) and target.attr.value == "tool" and self.receiver_typed(target.value):
                return True
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if self._is_tool(node):
            self.in_tool += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if self._is_tool(original_node):
            self.in_tool -= 1
        return updated_node

    def visit_Raise(self, node: cst.Raise) -> None:
        exc = node.exc
        target = exc.func if isinstance(exc, cst.Call) else exc
        if self.in_tool and target is not None and self.resolves_to(target, ERRORS):
            self.report(node, self.MESSAGE, fixed=False)

"""Local, cheap type provenance for attribute rules (MCP005 camelCase reads, MCP017 model_dump).

A name counts as an MCP model when, anywhere in the file, it is a parameter annotated with an
``mcp.types`` class (or a list of them), is assigned from an ``mcp.types`` constructor, from the
awaited result of a result-returning method on a provable client session, or is a ``for`` target
over a model list field of a provable model. A receiver is provable when the root name of its
attribute/subscript chain is such a name. Everything else is left alone (guards G2/G3).
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS, SESSION_CLASS

RESULT_METHODS = frozenset(
    {
        "call_tool", "list_tools", "read_resource", "list_resources", "list_resource_templates", "list_prompts",
        "get_prompt", "initialize", "complete", "send_request",
    }
)
MODEL_LISTS = frozenset({"tools", "resources", "resource_templates", "resourceTemplates", "prompts", "contents",
                         "content", "messages", "arguments"})


class Provenance(CallDetector):
    RECEIVERS = SESSION_CLASS | SERVER_CLASS  # MCPServer.list_tools() etc. return MCP models too

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.models: set[str] = set()

    def _is_mcp_type(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Subscript):  # list[Tool], Sequence[Tool], Optional[Tool]
            return any(isinstance(e.slice, cst.Index) and self._is_mcp_type(e.slice.value) for e in node.slice)
        if isinstance(node, cst.BinaryOperation):  # Tool | None
            return self._is_mcp_type(node.left) or self._is_mcp_type(node.right)
        return any(n.startswith("mcp.types.") for n in self.qnames(node))

    def _model_value(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Await):
            value = value.expression
        if not isinstance(value, cst.Call):
            return False
        if self._is_mcp_type(value.func):
            return True
        func = value.func
        return isinstance(func, cst.Attribute) and func.attr.value in RESULT_METHODS and self.receiver_typed(func.value)

    def visit_Param(self, node: cst.Param) -> None:
        super().visit_Param(node)
        if node.annotation is not None and self._is_mcp_type(node.annotation.annotation):
            self.models.add(node.name.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        super().visit_Assign(node)
        if self._model_value(node.value):
            self.models.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and self._is_mcp_type(node.annotation.annotation):
            self.models.add(node.target.value)

    def visit_For(self, node: cst.For) -> None:
        it = node.iter
        listed = isinstance(it, cst.Attribute) and it.attr.value in MODEL_LISTS and self.provable(it.value)
        if (listed or (isinstance(it, cst.Name) and it.value in self.models)) and isinstance(node.target, cst.Name):
            self.models.add(node.target.value)

    def provable(self, receiver: cst.BaseExpression) -> bool:
        node = receiver
        while True:
            if isinstance(node, cst.Attribute | cst.Subscript):
                node = node.value
            elif isinstance(node, cst.Await | cst.Call) and self._model_value(node):
                return True
            else:
                break
        return isinstance(node, cst.Name) and node.value in self.models

    def visit_Call(self, node: cst.Call) -> None:
        return None

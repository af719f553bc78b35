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
        self.others: set[str] = set()  # parameters annotated with something else
        self.returning: set[str] = set()  # module functions annotated to return MCP models
        self.scoped: list[set[str]] = []  # the model targets of the comprehensions being visited

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
        if isinstance(value.func, cst.Name) and value.func.value in self.returning:
            return True
        func = value.func
        return isinstance(func, cst.Attribute) and func.attr.value in RESULT_METHODS and self.receiver_typed(func.value)

    def visit_Module(self, node: cst.Module) -> None:
        """Functions of this file annotated to return MCP models (a lowlevel server's own
        ``async def list_tools() -> list[types.Tool]`` handler, called directly)."""
        for stmt in node.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.returns is not None:
                if self._is_mcp_type(stmt.returns.annotation):
                    self.returning.add(stmt.name.value)

    def visit_Param(self, node: cst.Param) -> None:
        super().visit_Param(node)
        if node.annotation is not None:
            if self._is_mcp_type(node.annotation.annotation):
                self.models.add(node.name.value)
            else:
                self.others.add(node.name.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        super().visit_Assign(node)
        if self._model_value(node.value) or self._model_list(node.value):  # `tools = response.tools` too
            self.models.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        super().visit_AnnAssign(node)
        if isinstance(node.target, cst.Name) and self._is_mcp_type(node.annotation.annotation):
            self.models.add(node.target.value)

    def _model_list(self, it: cst.BaseExpression) -> bool:
        """A list of MCP models: a model's list field (``result.tools``) or a name holding one; a
        server's own ``await mcp.list_tools()`` returns the list itself."""
        if isinstance(it, cst.Attribute) and it.attr.value in MODEL_LISTS and self.provable(it.value):
            return True
        if isinstance(it, cst.Name):
            return self._bound(it.value)
        return self._model_value(it)

    def _bound(self, name: str) -> bool:
        return name in self.models or any(name in names for names in self.scoped)

    def visit_For(self, node: cst.For) -> None:
        if isinstance(node.target, cst.Name) and self._model_list(node.iter):
            self.models.add(node.target.value)

    def _enter_comprehension(self, node: cst.BaseComp | cst.DictComp) -> None:
        """A comprehension's targets are bound before its element is read (libcst visits the element
        first): ``[t.inputSchema for t in (await session.list_tools()).tools]``."""
        names: set[str] = set()
        self.scoped.append(names)
        clause: cst.CompFor | None = node.for_in
        while clause is not None:
            if isinstance(clause.target, cst.Name) and self._model_list(clause.iter):
                names.add(clause.target.value)
            clause = clause.inner_for_in

    def _leave_comprehension(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:
        self.scoped.pop()
        return updated_node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _enter_comprehension
    leave_ListComp = leave_SetComp = leave_GeneratorExp = leave_DictComp = _leave_comprehension

    def provable(self, receiver: cst.BaseExpression) -> bool:
        node = receiver
        while True:
            if isinstance(node, cst.Subscript) and self._model_list(node.value):
                return True  # `tools[0]` of the server's own `await mcp.list_tools()`
            if isinstance(node, cst.Attribute | cst.Subscript):
                node = node.value
            elif isinstance(node, cst.Await | cst.Call) and self._model_value(node):
                return True
            else:
                break
        return isinstance(node, cst.Name) and self._bound(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        return None

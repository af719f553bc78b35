"""Which names are v1 lowlevel servers and which decorators register handlers on them (MCP007-MCP010)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.rules._lib.transformer import RuleTransformer
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER, SERVER_CLASS

KINDS = frozenset(
    {
        "list_tools", "call_tool", "list_resources", "list_resource_templates", "read_resource",
        "subscribe_resource", "unsubscribe_resource", "list_prompts", "get_prompt", "completion",
        "set_logging_level", "progress_notification",
    }
)


class LowlevelTracking(RuleTransformer):
    """Knows which names are lowlevel servers (and ``<MCPServer>._mcp_server``) and which
    decorators register v1 lowlevel handlers on them. Shared by MCP007 and MCP008-MCP010."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.servers: set[str] = set()
        self.high_level: set[str] = set()

    # ------------------------------------------------------------------ which names are lowlevel servers
    def visit_Module(self, node: cst.Module) -> None:
        """Module-level names bound to a lowlevel server before any use is visited: one annotated as
        one (``server: Server | None = None``) or assigned one inside a function through ``global``
        (a factory), since handlers may be decorated on it above that function."""
        rule = self

        class Globals(cst.CSTVisitor):
            def __init__(self) -> None:
                super().__init__()
                self.declared: set[str] = set()
                self.assigned: set[str] = set()

            def visit_Global(self, stmt: cst.Global) -> None:
                self.declared.update(item.name.value for item in stmt.names)

            def visit_Assign(self, stmt: cst.Assign) -> None:
                if isinstance(stmt.value, cst.Call) and rule.resolves_to(stmt.value.func, LOWLEVEL_SERVER):
                    self.assigned.update(t.target.value for t in stmt.targets if isinstance(t.target, cst.Name))

        found = Globals()
        node.visit(found)
        self.servers.update(found.declared & found.assigned)
        for stmt in node.body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and self._names_server(
                    small.annotation.annotation):
                self.servers.add(small.target.value)

    def _names_server(self, annotation: cst.BaseExpression) -> bool:
        """``Server``, ``Server[...]``, ``Server | None`` or ``Optional[Server]``."""
        if isinstance(annotation, cst.BinaryOperation):
            return self._names_server(annotation.left) or self._names_server(annotation.right)
        if isinstance(annotation, cst.Subscript):
            if self.resolves_to(annotation.value, LOWLEVEL_SERVER):
                return True
            return any(isinstance(e.slice, cst.Index) and self._names_server(e.slice.value) for e in annotation.slice)
        return self.resolves_to(annotation, LOWLEVEL_SERVER)

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if isinstance(value, cst.Call):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    if self.resolves_to(value.func, LOWLEVEL_SERVER):
                        self.servers.add(target.target.value)
                    elif self.resolves_to(value.func, SERVER_CLASS):
                        self.high_level.add(target.target.value)

    def _owner(self, node: cst.BaseExpression) -> str | None:
        """Source text of a lowlevel server expression: a tracked name or ``<server>._mcp_server``."""
        if isinstance(node, cst.Name) and node.value in self.servers:
            return node.value
        if (
            isinstance(node, cst.Attribute)
            and node.attr.value in ("_mcp_server", "_lowlevel_server")
            and isinstance(node.value, cst.Name)
            and node.value.value in self.high_level
        ):
            return f"{node.value.value}.{node.attr.value}"
        return None

    def visit_Param(self, node: cst.Param) -> None:
        annotation = node.annotation.annotation if node.annotation else None
        if annotation is not None:
            base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            if self.resolves_to(base, LOWLEVEL_SERVER):
                self.servers.add(node.name.value)

    def _decorator_kind(self, decorator: cst.Decorator) -> tuple[str, str, cst.Call] | None:
        call = decorator.decorator
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return None
        owner = self._owner(call.func.value)
        if owner is None:
            return None
        kind = call.func.attr.value
        return (owner, kind, call) if kind in KINDS else None

"""MCP028 get-context-removed: ``mcp.get_context()`` is gone: take an injected ``ctx: Context`` parameter.

Inside a handler registered on a provable server (``@mcp.tool()``, ``@mcp.prompt()``, a templated
``@mcp.resource("x://{id}")``) the call becomes a ``Context`` parameter of that handler (the name a
plain ``ctx = mcp.get_context()`` bound, else ``ctx``; keyword-only after defaulted parameters), and
``Context`` is imported from ``mcp.server.mcpserver`` when the file does not have it. Everywhere else
(a static resource, where v2 rejects a Context parameter; helpers; module level) a marker says what to do.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import add_imports
from mcp_eras.migrate.rules.base import CallDetector, dotted
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS, SERVER_CLASS

IMPORT = "from mcp.server.mcpserver import Context\n"
STATIC = ("get_context() was removed and v2 rejects a Context parameter on a static resource: make it a "
          "template (`{param}` in the URI) and add `ctx: Context` (from mcp.server.mcpserver import Context), or move "
          "the context-dependent part into a tool")


@dataclass
class Frame:
    handler: str | None  # "handler", "static" or None (not a registered handler)
    param: str | None  # name of an existing Context parameter
    wanted: str | None = None  # parameter to add


class Rule(CallDetector):
    META = RuleMeta(
        "MCP028",
        "get-context-removed",
        Kind.REQUIRED,
        Safety.REVIEW,
        "`mcp.get_context()` -> injected `ctx: Context` parameter",
        "mcpserverget_context-removed",
    )
    TRIGGERS = ("get_context",)
    METHODS = frozenset({"get_context"})
    RECEIVERS = SERVER_CLASS
    MESSAGE = "get_context() was removed: add a `ctx: Context` parameter to the tool/resource/prompt and use it"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.frames: list[Frame] = []
        self.need_import = False

    def visit_Call(self, node: cst.Call) -> None:
        return None

    def _handler_kind(self, node: cst.FunctionDef) -> str | None:
        for decorator in node.decorators:
            call = decorator.decorator
            if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
                continue
            if call.func.attr.value not in ("tool", "prompt", "resource") or not self.receiver_typed(call.func.value):
                continue
            if call.func.attr.value != "resource":
                return "handler"
            uri = next((a.value for a in call.args if a.keyword and a.keyword.value == "uri"), None)
            if uri is None and call.args and call.args[0].keyword is None:
                uri = call.args[0].value
            text = uri.evaluated_value if isinstance(uri, cst.SimpleString) else None
            return "handler" if isinstance(text, str) and "{" in text else "static"
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        existing = next((p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
                         if p.annotation is not None and self.resolves_to(_base(p.annotation.annotation), CONTEXT_CLASS)),
                        None)
        self.frames.append(Frame(self._handler_kind(node), existing))

    def _name_for(self, frame: Frame, call: cst.Call) -> str:
        if frame.param:
            return frame.param
        parent = self.parent()
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
            return parent.targets[0].target.value
        return frame.wanted or "ctx"

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if original_node.args or not self.is_site(original_node):
            return updated_node
        frame = self.frames[-1] if self.frames else None
        context_free = not self.bound(cst.Name("Context")) or self.resolves_to(cst.Name("Context"), CONTEXT_CLASS)
        if frame is None or frame.handler != "handler" or not self.can_fix or not context_free:
            self.report(original_node, STATIC if frame and frame.handler == "static" else self.MESSAGE, fixed=False)
            return updated_node
        name = self._name_for(frame, original_node)
        if not self.report(original_node, f"-> the injected `{name}: Context` parameter", fixed=True):
            return updated_node
        if not frame.param:
            frame.wanted = name
            self.need_import = self.need_import or not self.bound(cst.Name("Context"))
        return cst.Name(name)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine) -> cst.BaseStatement | cst.RemovalSentinel:
        body = updated_node.body
        if (self.frames and self.frames[-1].wanted and len(body) == 1 and isinstance(body[0], cst.Assign)
                and len(body[0].targets) == 1 and dotted(body[0].targets[0].target) == dotted(body[0].value)
                == self.frames[-1].wanted):
            return cst.RemovalSentinel.REMOVE  # `ctx = mcp.get_context()` became `ctx = ctx`
        return updated_node

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        frame = self.frames.pop()
        if not frame.wanted:
            return updated_node
        params = updated_node.params
        param = cst.Param(cst.Name(frame.wanted), annotation=cst.Annotation(cst.Name("Context")))
        defaulted = any(p.default is not None for p in (*params.posonly_params, *params.params))
        if not defaulted and isinstance(params.star_arg, cst.MaybeSentinel) and not params.kwonly_params:
            return updated_node.with_changes(params=params.with_changes(params=[*params.params, param]))
        star = params.star_arg if not isinstance(params.star_arg, cst.MaybeSentinel) else cst.ParamStar()
        return updated_node.with_changes(params=params.with_changes(star_arg=star,
                                                                    kwonly_params=[*params.kwonly_params, param]))

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return add_imports(updated_node, [IMPORT]) if self.need_import else updated_node


def _base(annotation: cst.BaseExpression) -> cst.BaseExpression:
    return annotation.value if isinstance(annotation, cst.Subscript) else annotation

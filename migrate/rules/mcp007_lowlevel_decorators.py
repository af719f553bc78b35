"""MCP007 lowlevel-decorators: ``@server.list_tools()``-style decorators -> v2 request handlers.

Strategy (guard G8: tests that call v1 handlers directly keep working): the handler body and
signature stay untouched; the decorator becomes a registration right after the ``def`` through a
generated adapter (``_mcp_v1_register``) that reproduces v1's result wrapping (MCP008), tool
schema validation (MCP009) and exception-to-``isError`` conversion (MCP010). Reads of
``server.request_context`` inside handlers (MCP021) become ``_mcp_v1_request_context()``, which
returns the v2 ``ctx`` of the request being served.
"""

from __future__ import annotations

from functools import cache

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.lowlevel import KINDS, LowlevelTracking
from mcp_eras.migrate.rules.lowlevel_adapter import ADAPTER_MARK, ADAPTER_SOURCE

ANCHOR = "lowlevel-server-decorator-based-handlers-replaced-with-constructor-on_-params"
LIST_KINDS = frozenset({"list_tools", "list_resources", "list_resource_templates", "list_prompts"})


def _takes_request(func: cst.FunctionDef) -> bool:
    params = [*func.params.posonly_params, *func.params.params]
    return any(p.default is None for p in params) or any(p.default is None for p in func.params.kwonly_params)


class Rule(LowlevelTracking):
    META = RuleMeta(
        "MCP007", "lowlevel-decorators", Kind.REQUIRED, Safety.REVIEW,
        "Lowlevel `@server.<kind>()` decorators -> v2 request handlers via a v1-compatible adapter", ANCHOR,
    )
    TRIGGERS = ("Server",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.registered = 0
        self.context_reads = 0

    # ------------------------------------------------------------------ decorators -> registrations
    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef | cst.FlattenSentinel[cst.BaseStatement]:
        found = [(i, self._decorator_kind(d)) for i, d in enumerate(updated_node.decorators)]
        found = [(i, k) for i, k in found if k is not None]
        if not found:
            return updated_node
        if len(found) > 1 or found[0][0] != len(updated_node.decorators) - 1:
            self.report(original_node, "stacked lowlevel decorators: register the handler with "
                                       "server.add_request_handler() by hand", fixed=False)
            return updated_node
        index, (server, kind, call) = found[0]
        if not self.can_fix:
            self.report(original_node, f"`@{server}.{kind}()` -> v2 request handler (see the guide)", fixed=False)
            return updated_node
        if not self.report(original_node, f"`@{server}.{kind}()` registered through the v1 adapter", fixed=True):
            return updated_node
        args = [cst.Arg(cst.parse_expression(server)), cst.Arg(cst.SimpleString(f'"{kind}"')),
                cst.Arg(updated_node.name)]
        if kind in LIST_KINDS and _takes_request(updated_node):
            args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("takes_request")))
        for arg in call.args:
            if arg.keyword and arg.keyword.value == "validate_input":
                args.append(cst.Arg(arg.value, keyword=cst.Name("validate_input")))
        args = _commas([a.with_changes(equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
                        if a.keyword else a for a in args])
        registration = cst.SimpleStatementLine(
            [cst.Expr(cst.Call(func=cst.Name("_mcp_v1_register"), args=args))]
        )
        decorators = list(updated_node.decorators)
        del decorators[index]
        self.registered += 1
        return cst.FlattenSentinel([updated_node.with_changes(decorators=decorators), registration])

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        """Call form ``server.call_tool()(handler)`` -> ``_mcp_v1_register(server, "call_tool", handler)``."""
        inner = updated_node.func
        if not (isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute)):
            return updated_node
        owner = self._owner(inner.func.value)
        kind = inner.func.attr.value
        if owner is None or kind not in KINDS or len(updated_node.args) != 1 or updated_node.args[0].keyword:
            return updated_node
        if not self.can_fix or not self.report(original_node, f"`{owner}.{kind}()(...)` registered through the v1 "
                                                              "adapter", fixed=True):
            return updated_node
        args = [cst.Arg(cst.parse_expression(owner)), cst.Arg(cst.SimpleString(f'"{kind}"')),
                updated_node.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        for arg in inner.args:
            if arg.keyword and arg.keyword.value == "validate_input":
                args.append(arg.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        self.registered += 1
        return cst.Call(func=cst.Name("_mcp_v1_register"), args=_commas(args))

    # ------------------------------------------------------------------ server.request_context (MCP021)
    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if (
            updated_node.attr.value == "request_context"
            and isinstance(updated_node.value, cst.Name)
            and updated_node.value.value in self.servers
            and self.can_fix
            and self.report(original_node, "`server.request_context` -> the ctx of the request being served "
                                           "(v2 ServerRequestContext); check the attributes you read", fixed=True,
                            review=True)
        ):
            self.context_reads += 1
            return cst.Call(func=cst.Name("_mcp_v1_request_context"))
        return updated_node

    # ------------------------------------------------------------------ the adapter block
    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        uses_adapter = self.registered or self.context_reads
        if not uses_adapter or ADAPTER_MARK in self.ctx.code or "def _mcp_v1_register(" in self.ctx.code:
            return updated_node
        body = list(updated_node.body)
        position = 0
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(s, cst.Import | cst.ImportFrom) for s in stmt.body
            ):
                position = i + 1
            elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
                position = 1  # module docstring
            elif position or not isinstance(stmt, cst.SimpleStatementLine):
                break
        adapter = _adapter_module()
        block = list(adapter.body)
        first = block[0]
        block[0] = first.with_changes(
            leading_lines=[cst.EmptyLine(), cst.EmptyLine(), *adapter.header, *first.leading_lines]
        )
        return updated_node.with_changes(body=[*body[:position], *block, *body[position:]])


@cache
def _adapter_module() -> cst.Module:
    """Parsed once per process: libcst nodes are immutable, so the same statements can be reused."""
    return cst.parse_module(ADAPTER_SOURCE)


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [a.with_changes(comma=comma if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT) for i, a in enumerate(args)]

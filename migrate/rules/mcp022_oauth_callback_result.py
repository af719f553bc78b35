"""MCP022 oauth-callback-result: ``callback_handler`` returns ``AuthorizationCodeResult(code, state, iss)``
instead of ``(code, state)`` (python-sdk ``docs/migration.md`` § "OAuth callback_handler returns
AuthorizationCodeResult").

For ``OAuthClientProvider(..., callback_handler=<name>)`` where ``<name>`` is the one function of that
name in the file: each ``return a, b`` of that function becomes
``AuthorizationCodeResult(code=a, state=b)`` and its return annotation ``AuthorizationCodeResult``
(imported from ``mcp.client.auth``). When ``b`` reads the ``state`` query parameter as
``<params>.get("state", ...)[0]`` (the ``parse_qs`` idiom), ``iss`` is read the same way; otherwise
the site is left for review (forward ``iss`` where the authorization server sends it). A handler
defined elsewhere, a method, or a function returning anything but 2-tuples is reported.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.import_names import add_name
from mcp_eras.migrate.rules._lib.returns import own_returns
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import CallDetector

OAUTH = frozenset({"mcp.client.auth.OAuthClientProvider", "mcp.client.auth.oauth2.OAuthClientProvider"})
RESULT = "AuthorizationCodeResult"


def _iss_from(state: cst.BaseExpression) -> cst.BaseExpression | None:
    """``p.get("state", d)[0]`` -> ``p.get("iss", d)[0]`` (same for ``p.get("state")``); else None."""
    call = state.value if isinstance(state, cst.Subscript) else state
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "get"
            and call.args and isinstance(call.args[0].value, cst.SimpleString)
            and call.args[0].value.evaluated_value == "state"):
        return None
    quote = call.args[0].value.quote
    renamed = call.with_changes(args=[call.args[0].with_changes(value=cst.SimpleString(f"{quote}iss{quote}")),
                                      *call.args[1:]])
    return state.with_changes(value=renamed) if isinstance(state, cst.Subscript) else renamed


class Rule(CallDetector):
    META = RuleMeta(
        "MCP022",
        "oauth-callback-result",
        Kind.REQUIRED,
        Safety.REVIEW,
        "`callback_handler` returns `AuthorizationCodeResult(code, state, iss)` instead of `(code, state)`",
        "oauth-callback_handler-returns-authorizationcoderesult",
    )
    TRIGGERS = ("callback_handler",)
    CALLEES = OAUTH
    KEYWORDS = frozenset({"callback_handler"})
    MESSAGE = "callback_handler must now return AuthorizationCodeResult(code=..., state=..., iss=...)"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.handlers: dict[str, cst.FunctionDef] = {}  # name -> the one def of that name, to rewrite
        self.ported: set[str] = set()  # handlers that already return AuthorizationCodeResult (a second run)
        self.rewrote = False

    def visit_Module(self, node: cst.Module) -> None:
        defs: dict[str, list[cst.FunctionDef]] = {}
        calls: list[cst.Call] = []
        for current in walk(node):
            if isinstance(current, cst.FunctionDef):
                defs.setdefault(current.name.value, []).append(current)
            elif isinstance(current, cst.Call):
                calls.append(current)
        for call in calls:
            if not self.resolves_to(call.func, OAUTH):
                continue
            for arg in call.args:
                if arg.keyword and arg.keyword.value == "callback_handler" and isinstance(arg.value, cst.Name):
                    found = defs.get(arg.value.value, [])
                    if len(found) == 1 and self.can_fix and self._convertible(found[0]):
                        self.handlers[arg.value.value] = found[0]
                    elif len(found) == 1 and _returns_result(found[0]):
                        self.ported.add(arg.value.value)

    def _convertible(self, func: cst.FunctionDef) -> bool:
        values = [r.value for r in own_returns(func)]
        return bool(values) and all(isinstance(v, cst.Tuple) and len(v.elements) == 2 and not any(
            isinstance(e, cst.StarredElement) for e in v.elements) for v in values)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.is_site(node):
            return
        handler = next((a.value for a in node.args if a.keyword and a.keyword.value == "callback_handler"), None)
        if isinstance(handler, cst.Name) and handler.value in self.handlers and self.can_fix:
            return
        if isinstance(handler, cst.Name) and handler.value in self.ported:
            return
        self.report(node, self.MESSAGE, fixed=False)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        name = original_node.name.value
        if self.handlers.get(name) is not original_node:
            return updated_node
        derived = all(_iss_from(r.value.elements[1].value) is not None  # type: ignore[union-attr]
                      for r in own_returns(original_node))
        message = ("(code, state) -> AuthorizationCodeResult(code=..., state=..., iss=...)" if derived else
                   "(code, state) -> AuthorizationCodeResult(code=..., state=...): also pass iss= (the `iss` "
                   "query parameter of the callback URL) where the authorization server sends it")
        if not self.report(original_node, message, fixed=True, review=not derived):
            return updated_node
        self.rewrote = True
        body = updated_node.body.visit(_WrapReturns())
        annotation = cst.Annotation(cst.Name(RESULT))
        return updated_node.with_changes(body=body, returns=annotation)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return add_name(updated_node, "mcp.client.auth", RESULT) if self.rewrote else updated_node


def _returns_result(func: cst.FunctionDef) -> bool:
    values = [r.value for r in own_returns(func)]
    return bool(values) and all(isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == RESULT
                                for v in values)


class _WrapReturns(cst.CSTTransformer):
    """``return a, b`` -> ``return AuthorizationCodeResult(code=a, state=b[, iss=...])`` in one function
    body (nested functions and classes keep their own returns)."""

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def leave_Return(self, original_node: cst.Return, updated_node: cst.Return) -> cst.Return:
        value = updated_node.value
        if not isinstance(value, cst.Tuple) or len(value.elements) != 2:
            return updated_node
        code, state = (e.value for e in value.elements)
        args = [cst.Arg(code, keyword=cst.Name("code"), equal=_EQ), cst.Arg(state, keyword=cst.Name("state"), equal=_EQ)]
        iss = _iss_from(state)
        if iss is not None:
            args.append(cst.Arg(iss, keyword=cst.Name("iss"), equal=_EQ))
        args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + [args[-1]]
        whitespace = updated_node.whitespace_after_return
        if isinstance(whitespace, cst.SimpleWhitespace) and not whitespace.value:
            whitespace = cst.SimpleWhitespace(" ")  # `return(a, b)`
        return updated_node.with_changes(value=cst.Call(cst.Name(RESULT), args=args), whitespace_after_return=whitespace)


_EQ = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))

"""MCP030 timedelta-timeouts: client timeouts take float seconds, not ``timedelta``.

A ``timedelta(...)`` written in the argument becomes its seconds; a module-level name bound once to
one (and never bound again anywhere in the file) is passed as ``NAME.total_seconds()``."""

from __future__ import annotations

import ast
from collections import Counter

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import KeywordEdit, dotted
from mcp_eras.migrate.rules.sdk import SESSION_CLASS


class Rule(KeywordEdit):
    META = RuleMeta(
        "MCP030", "timedelta-timeouts", Kind.REQUIRED, Safety.SAFE,
        'Client timeouts take float seconds, not `timedelta`',
        'timeouts-take-float-seconds-instead-of-timedelta',
    )
    TRIGGERS = ("timedelta",)
    CALLEES = frozenset(
        {
            "mcp.ClientSession",
            "mcp.client.session.ClientSession",
            "mcp.client.sse.sse_client",
            "mcp.client.streamable_http.streamablehttp_client",
            "mcp.client.streamable_http.streamable_http_client",
        }
    )
    METHODS = frozenset({"call_tool", "send_request"})
    RECEIVERS = SESSION_CLASS
    RENAME_KW = {"read_timeout_seconds": "read_timeout_seconds", "timeout": "timeout",
                 "sse_read_timeout": "sse_read_timeout"}
    MESSAGE = "`timedelta` timeout -> float seconds"

    def visit_Module(self, node: cst.Module) -> None:
        """Module-level names bound once to a ``timedelta(...)`` and bound nowhere else in the file."""
        candidates = {stmt.body[0].targets[0].target.value  # type: ignore[attr-defined]
                      for stmt in node.body
                      if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                      and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1
                      and isinstance(stmt.body[0].targets[0].target, cst.Name) and self._is_timedelta(stmt.body[0].value)}
        self.constants = {name for name, n in _bindings(self.ctx.code).items() if n == 1} & candidates if candidates else set()

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not any(a.keyword and a.keyword.value in self.RENAME_KW and (self._is_timedelta(a.value) or self._constant(a.value))
                   for a in original_node.args):
            return updated_node
        return super().leave_Call(original_node, updated_node)

    def _constant(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value in getattr(self, "constants", ())

    def _is_timedelta(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Call) and self.resolves_to(node.func, {"datetime.timedelta"})

    def edit_value(self, keyword: str, value: cst.BaseExpression) -> cst.BaseExpression:
        if self._constant(value):
            return cst.Call(func=cst.Attribute(value=value, attr=cst.Name("total_seconds")))
        name = dotted(value.func) if isinstance(value, cst.Call) else None
        if not isinstance(value, cst.Call) or name is None or name.rsplit(".", 1)[-1] != "timedelta":
            return value
        if (len(value.args) == 1 and value.args[0].keyword and value.args[0].keyword.value == "seconds"
                and isinstance(value.args[0].value, cst.Integer | cst.Float)):
            number = value.args[0].value
            return cst.Float(f"{float(number.value.replace('_', ''))!r}")
        return cst.Call(func=cst.Attribute(value=value, attr=cst.Name("total_seconds")))


def _bindings(code: str) -> Counter[str]:
    """How often each name is bound anywhere in ``code`` (assignments, parameters, imports, defs)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return Counter()
    names: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names[node.id] += 1
        elif isinstance(node, ast.arg):
            names[node.arg] += 1
        elif isinstance(node, ast.alias):
            names[(node.asname or node.name).split(".")[0]] += 1
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] += 1
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            names[node.name] += 1
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update({name: 2 for name in node.names})  # rebound in a function: not a constant
    return names

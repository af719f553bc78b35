"""MCP104 httpx-logger-names (optional): ``logging.getLogger("httpx"/"httpcore")`` no longer tunes the
SDK's HTTP client, whose loggers are ``httpx2``/``httpcore2`` (python-sdk ``docs/migration.md`` §
"httpx and httpx-sse replaced by httpx2").

The logger name is rewritten when the file has no httpx use of its own left (no ``httpx`` import, or
MCP101 ports it in the same run). Otherwise the tuning is kept for the file's own httpx and, when it
is a statement of its own (``logging.getLogger("httpx").setLevel(...)``), repeated for the new name;
a logger kept in a variable is reported.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import RuleTransformer

GET_LOGGER = frozenset({"logging.getLogger"})
NEW = {"httpx": "httpx2", "httpcore": "httpcore2"}


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP104",
        "httpx-logger-names",
        Kind.OPTIONAL,
        Safety.SAFE,
        '`logging.getLogger("httpx"/"httpcore")` no longer affects the SDK client -> `httpx2`/`httpcore2`',
        "httpx-and-httpx-sse-replaced-by-httpx2",
    )
    TRIGGERS = ("getLogger",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.keep_httpx = False
        self.duplicate: list[cst.BaseSmallStatement] = []

    def visit_Module(self, node: cst.Module) -> None:
        own = any(m == "httpx" or m.startswith("httpx.") for m in self.ctx.table().modules)
        self.keep_httpx = own and "MCP101" not in self.ctx.selected

    def _name(self, node: cst.Call) -> str | None:
        if not node.args or not self.resolves_to(node.func, GET_LOGGER):
            return None
        value = node.args[0].value
        name = value.evaluated_value if isinstance(value, cst.SimpleString) else None
        return name if isinstance(name, str) and name in NEW else None

    def _renamed(self, node: cst.Call, name: str) -> cst.Call:
        value = node.args[0].value
        assert isinstance(value, cst.SimpleString)
        literal = value.with_changes(value=value.value.replace(name, NEW[name], 1))
        return node.with_changes(args=[node.args[0].with_changes(value=literal), *node.args[1:]])

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        name = self._name(original_node)
        if name is None or self.keep_httpx or not self.can_fix:
            return updated_node
        if not self.report(original_node, f"the SDK logs to {NEW[name]!r} now", fixed=True):
            return updated_node
        return self._renamed(updated_node, name)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine) -> cst.BaseStatement | cst.FlattenSentinel:
        if not self.keep_httpx:
            return updated_node
        calls = [c for c in walk(original_node) if isinstance(c, cst.Call) and self._name(c) is not None]
        if not calls:
            return updated_node
        stmt = updated_node.body[0] if len(updated_node.body) == 1 else None
        if not isinstance(stmt, cst.Expr) or not self.can_fix:
            self.report(original_node, "the SDK logs to 'httpx2'/'httpcore2' now: tune those loggers as well",
                        fixed=False)
            return updated_node
        copy = updated_node.visit(_Rename(self)).with_changes(leading_lines=[])
        if cst.Module([]).code_for_node(copy).strip() in self.ctx.code:
            return updated_node  # a second run: the tuning for the new names is already there
        if not self.report(original_node, "the SDK logs to 'httpx2'/'httpcore2' now: the same tuning is added "
                                          "for them (this file keeps its own httpx)", fixed=True):
            return updated_node
        return cst.FlattenSentinel([updated_node, copy])


class _Rename(cst.CSTTransformer):
    """The copy of a statement the rule proved to tune an httpx logger: ``getLogger("httpx")`` there
    -> ``getLogger("httpx2")`` (the copy is not in the resolved tree, so it is matched by shape)."""

    def __init__(self, rule: Rule) -> None:
        super().__init__()
        self.rule = rule

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = updated_node.func
        named = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        value = updated_node.args[0].value if updated_node.args else None
        name = value.evaluated_value if isinstance(value, cst.SimpleString) else None
        if named == "getLogger" and isinstance(name, str) and name in NEW:
            return self.rule._renamed(updated_node, name)
        return updated_node

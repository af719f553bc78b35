"""Where transport keyword arguments go when they leave the server constructor (MCP003) or its
``settings`` (MCP019): the pure ``plan()`` both ends agree on, and ``StartSiteEditor``, which adds
them at the start and mount sites the project index knows."""

from __future__ import annotations

import ast
import builtins
import os
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from mcp_eras.migrate.index import ProjectIndex, ServerCtor, StartSite
from mcp_eras.migrate.rules._lib.imports import add_imports
from mcp_eras.migrate.rules._lib.transformer import RuleTransformer

ANCHOR = "transport-specific-parameters-moved-from-mcpserver-constructor-to-runapp-methods"
SSE = ("host", "port", "sse_path", "message_path", "max_request_body_size", "transport_security")
HTTP = (
    "host", "port", "streamable_http_path", "json_response", "stateless_http", "event_store", "retry_interval",
    "max_request_body_size", "transport_security",
)
COMMON = ("host", "port", "max_request_body_size", "transport_security")
DESTINATIONS: dict[str | None, tuple[str, ...]] = {
    "sse": SSE,
    "streamable-http": HTTP,
    "sse-app": tuple(k for k in SSE if k != "port"),
    "streamable-app": tuple(k for k in HTTP if k != "port"),
    "stdio": (),
}


@dataclass
class Plan:
    movable: bool
    reason: str = ""
    # values that cannot be re-spelled at a start site in another scope/module travel on the server
    # object instead: ``server._mcp_v1_transport = {...}`` after the constructor, read back at the sites
    stash: bool = False
    review: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    # names a site module must import from the constructor's module to spell the values as written
    imports: dict[str, list[str]] = field(default_factory=dict)


def site_kwargs(site: StartSite, kwargs: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(kwargs passed unconditionally, kwargs passed only for streamable HTTP) at ``site``."""
    if site.transport is None:  # dynamic transport expression
        common = {k: v for k, v in kwargs.items() if k in COMMON}
        http_only = {k: v for k, v in kwargs.items() if k not in COMMON and k in HTTP}
        return common, http_only
    wanted = DESTINATIONS.get(site.transport, ())
    return {k: v for k, v in kwargs.items() if k in wanted}, {}


def plan(ctor: ServerCtor, index: ProjectIndex) -> Plan:
    sites = index.sites_for(ctor)
    moved = ctor.moved()
    if not moved:
        return Plan(False, "nothing to move")
    if not sites:
        return Plan(False, "no start site (run()/*_app()/run_*_async()) found for this server; pass "
                           f"{', '.join(moved)} there (v2 rejects them here)")
    result = Plan(True)
    used: set[str] = set()
    for site in sites:
        if site.ignored:  # all or nothing: never remove here what a start site will not receive
            return Plan(False, f"a start site ({os.path.relpath(site.path, Path(ctor.path).parent)}:{site.line}) is "
                               f"marked `mcp-migrate: ignore`; pass {', '.join(moved)} there by hand")
        literal = all(ctor.literal.get(k, False) for k in moved)
        elsewhere = site.path != ctor.path or bool(ctor.scope and site.scope != ctor.scope)
        hidden = [] if literal or not elsewhere else invisible(ctor, site, index)
        lines = importable(ctor, site, index, hidden)
        imported = bool(hidden and lines)
        if imported:
            result.imports.setdefault(site.path, []).extend(lines or [])
            hidden = []
        if hidden:
            where = (os.path.relpath(site.path, Path(ctor.path).parent) if site.path != ctor.path
                     else f"`{site.scope or '<module>'}`")
            if ctor.settings:
                return Plan(False, f"started in another scope/module ({where}) with non-literal values and "
                                   f"settings writes; pass {', '.join(moved)} to that call by hand")
            result.stash = True
            result.review.append(f"`_mcp_v1_transport` carries them: `{'`, `'.join(hidden)}` not in scope at the "
                                 f"start site in {where}")
        if site.path != ctor.path and not result.stash:
            result.review.append(f"moved to the start site in {os.path.relpath(site.path, Path(ctor.path).parent)}"
                                 + (" with the imports their values need" if imported else ""))
        if site.transport is None:
            _, http_only = site_kwargs(site, moved)
            if http_only and not site.simple_transport:
                return Plan(False, f"the transport is computed by an expression; pass {', '.join(http_only)} "
                                   "only for streamable-http by hand")
            if http_only:
                result.review.append("dynamic transport: streamable-only options are passed conditionally")
        common, extra = site_kwargs(site, moved)
        used.update(common)
        used.update(extra)
    result.dropped = [k for k in moved if k not in used]
    return result


def invisible(ctor: ServerCtor, site: StartSite, index: ProjectIndex) -> list[str]:
    """Names used by the moved values that do not denote the same thing at ``site``: empty when every
    value can be spelled there as written (a literal, or names bound alike at module level on both
    ends, e.g. the same import, or builtins neither end rebinds)."""
    ctor_names = index.tables.get(ctor.path, {})
    site_names = index.tables.get(site.path, {})
    module = ctor.key.rsplit(".", 1)[0]
    hidden: list[str] = []
    for source in ctor.moved().values():
        try:
            tree = ast.parse(source.strip(), mode="eval")
        except SyntaxError:
            return ["<expression>"]
        for node in ast.walk(tree):
            if not isinstance(node, ast.Name) or node.id in hidden:
                continue
            if ctor.scope and node.id not in ctor_names:  # may be local to the constructing function
                hidden.append(node.id)
                continue
            here = ctor_names.get(node.id, f"{module}.{node.id}")
            there = site_names.get(node.id, here if site.path == ctor.path else None)
            if there is None and node.id not in ctor_names and hasattr(builtins, node.id):
                continue
            if there != here:
                hidden.append(node.id)
    return hidden


def importable(ctor: ServerCtor, site: StartSite, index: ProjectIndex, hidden: list[str]) -> list[str] | None:
    """Import lines that make every hidden name mean at ``site`` what it means at the constructor: an
    import of the constructor's module is repeated from its real home (``import os``), a module-level
    name of that module is imported from it, provided the site's module already imports from it
    under that spelling and binds none of the names otherwise; else None."""
    if not hidden or ctor.scope or site.path == ctor.path:
        return None
    module = ctor.key.rsplit(".", 1)[0]
    ctor_names = index.tables.get(ctor.path, {})
    site_names = index.tables.get(site.path, {})
    assigned = index.assigned.get(ctor.path, set())
    if not any(q.startswith(module + ".") and q.count(".") == module.count(".") + 1 for q in site_names.values()):
        return None
    lines = []
    for name in hidden:
        target = ctor_names.get(name, f"{module}.{name}" if name in assigned else None)
        if target is None or name in site_names:
            return None
        if target == name:
            lines.append(f"import {name}\n")
        else:
            home, _, attr = target.rpartition(".")
            lines.append(f"from {home} import {attr}\n" if attr == name else f"from {home} import {attr} as {name}\n")
    return lines


def value_expr(name: str, source: str, literal: bool) -> cst.BaseExpression:
    expr = cst.parse_expression(source)
    converted = isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "int"
    if name == "port" and not literal and not converted and ("getenv" in source or "environ" in source):
        expr = cst.Call(func=cst.Name("int"), args=[cst.Arg(expr)])
    return expr


class StartSiteEditor(RuleTransformer):
    """Adds moved transport kwargs to the start sites the index knows (shared by MCP003/MCP019)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.counts: dict[tuple[str, ...], int] = {}
        self.site_imports: list[str] = []

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return site_imports(updated_node, self.site_imports)

    def _next(self, *key: str) -> int:
        value = self.counts.get(key, 0)
        self.counts[key] = value + 1
        return value

    def moved_here(self, ctor: ServerCtor) -> dict[str, str]:
        raise NotImplementedError

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        func = original_node.func
        if isinstance(func, cst.Attribute) and func.attr.value in DESTINATIONS_BY_METHOD:
            return self._site(original_node, updated_node)
        return updated_node

    # ------------------------------------------------------------------ start-site end
    def _site(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        func = original.func
        assert isinstance(func, cst.Attribute)
        method = func.attr.value
        receiver = cst.Module([]).code_for_node(func.value)
        site = self.ctx.index.site_named(self.ctx.path, receiver, method, self._next("site", receiver, method))
        if site is None:
            return updated
        ctor = self.ctx.index.ctor_for(site.key, site.path)
        if ctor is None or not self.moved_here(ctor) or not self.can_fix:
            return updated
        decision = plan(ctor, self.ctx.index)
        if not decision.movable:
            return updated
        if decision.stash:
            return self._stash_site(original, updated, site, ctor)
        existing = {a.keyword.value for a in updated.args if a.keyword}
        common, extra = site_kwargs(site, {k: v for k, v in self.moved_here(ctor).items() if k not in existing})
        if not common and not extra:
            return updated
        if not self.report(original, "receives the transport kwargs from the constructor", fixed=True):
            return updated
        self.site_imports.extend(i for i in decision.imports.get(self.ctx.path, []) if i not in self.site_imports)
        args = list(updated.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        new_args = [
            cst.Arg(value=value_expr(k, v, ctor.literal.get(k, False)), keyword=cst.Name(k),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
            for k, v in common.items()
        ]
        if extra:
            transport = _transport_expr(updated)
            if transport is None:
                self.report(original, f"pass {', '.join(extra)} only when the transport is streamable-http",
                            fixed=False)
            else:
                options = cst.Dict([cst.DictElement(cst.SimpleString(f'"{k}"'), cst.parse_expression(v))
                                    for k, v in extra.items()])
                test = cst.Comparison(transport, [cst.ComparisonTarget(cst.Equal(), cst.SimpleString(
                    '"streamable-http"'))])
                cond = cst.IfExp(test=test, body=options, orelse=cst.Dict([]))
                new_args.append(cst.Arg(value=_paren(cond), star="**"))
        for i, arg in enumerate(new_args):
            if i < len(new_args) - 1:
                new_args[i] = arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return updated.with_changes(args=[*args, *new_args])


    def _stash_site(self, original: cst.Call, updated: cst.Call, site: StartSite, ctor: ServerCtor) -> cst.Call:
        keys = self.moved_here(ctor)
        if any(a.star == "**" and "_mcp_v1_transport" in cst.Module([]).code_for_node(a.value) for a in updated.args):
            return updated
        common, extra = site_kwargs(site, keys)
        if not common and not extra:
            return updated
        receiver = cst.Module([]).code_for_node(updated.func.value)  # type: ignore[attr-defined]
        condition = f"k in {tuple(common)!r}"
        if extra:
            transport = _transport_expr(updated)
            if transport is None:
                return updated
            condition += f" or ({cst.Module([]).code_for_node(transport)} == \"streamable-http\" and k in {tuple(extra)!r})"
        source = f'{{k: v for k, v in getattr({receiver}, "_mcp_v1_transport", {{}}).items() if {condition}}}'
        if not self.report(original, "receives the constructor's transport kwargs from `_mcp_v1_transport`", fixed=True):
            return updated
        args = list(updated.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return updated.with_changes(args=[*args, cst.Arg(cst.parse_expression(source), star="**")])


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _transport_expr(call: cst.Call) -> cst.BaseExpression | None:
    expr: cst.BaseExpression | None = call.args[0].value if call.args and call.args[0].keyword is None else None
    for arg in call.args:
        if arg.keyword and arg.keyword.value == "transport":
            expr = arg.value
    if isinstance(expr, cst.Name | cst.Attribute):
        return expr
    return None


DESTINATIONS_BY_METHOD = frozenset({"run", "run_sse_async", "run_streamable_http_async", "sse_app",
                                    "streamable_http_app"})
ALL_KWARGS = frozenset(HTTP) | frozenset(SSE)


def site_imports(module: cst.Module, lines: list[str]) -> cst.Module:
    """The import lines a moved value needs at a start site (see ``importable``)."""
    return add_imports(module, lines) if lines else module

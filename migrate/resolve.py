"""Cheap name resolution for the common case, with libcst scope analysis as the fallback.

Full ``QualifiedNameProvider`` resolution (scope analysis) costs more than parsing and all rules
together. Most files bind SDK names only through imports, so a per-file import table answers
"what does this name/attribute chain refer to" exactly - except where an imported root name is
also bound locally (``import mcp.types`` next to ``mcp = FastMCP(...)``, a parameter named like
an import, a star import). Such files are resolved with the real scope analysis instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import libcst as cst

from mcp_eras.migrate.index import absolute_module


def dotted(node: cst.BaseExpression | None) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def _targets(node: cst.BaseExpression) -> Iterator[str]:
    if isinstance(node, cst.Name):
        yield node.value
    elif isinstance(node, cst.Tuple | cst.List):
        for element in node.elements:
            yield from _targets(element.value)
    elif isinstance(node, cst.StarredElement):
        yield from _targets(node.value)


def _captures(pattern: cst.MatchPattern) -> Iterator[str]:
    """Names a ``case`` pattern binds (capture patterns, ``as`` names, ``*rest``, ``**rest``)."""
    for node in _descendants(pattern):
        if isinstance(node, cst.MatchAs | cst.MatchStar) and node.name is not None:
            yield node.name.value
        elif isinstance(node, cst.MatchMapping) and node.rest is not None:
            yield node.rest.value


def _descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


class _ExpressionBindings(cst.CSTVisitor):
    """Names bound inside expressions: walrus targets (also in comprehensions), lambda parameters
    and comprehension variables."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.names.update(_targets(node.target))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.names.update(_targets(node.target))

    def visit_Lambda(self, node: cst.Lambda) -> None:
        params = node.params
        self.names.update(p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params))
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.names.add(star.name.value)


class ImportTable:
    """Local name -> qualified name for every import in the file (any depth)."""

    def __init__(self, module: cst.Module, code: str | None = None, name: str = "", package: bool = False) -> None:
        self.name = name  # dotted name of this module: relative imports resolve against it
        self.package = package
        self.imports: dict[str, set[str]] = {}
        self.local: set[str] = set()
        self.modules: list[str] = []  # every module named by an import statement
        self.star = False
        self._walk(module.body)
        if code is None or ":=" in code or "lambda" in code:
            bindings = _ExpressionBindings()
            module.visit(bindings)
            self.local |= bindings.names
        self.ambiguous = self.star or any(len(v) > 1 for v in self.imports.values()) or bool(
            self.local & set(self.imports)
        )

    def _bind_import(self, local: str, qualified: str) -> None:
        self.imports.setdefault(local, set()).add(qualified)

    def _walk(self, body: Iterable[cst.CSTNode]) -> None:
        """Bind every name a statement list binds, at any depth, for every statement type of
        Python 3.10-3.13 (``match``/``case`` captures, ``type`` aliases, ``except*``, PEP 695 type
        parameters); compound statements are walked through their child blocks generically."""
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine | cst.SimpleStatementSuite):
                for small in stmt.body:
                    self._small(small)
            elif isinstance(stmt, cst.BaseCompoundStatement):
                self._compound(stmt)

    def _compound(self, stmt: cst.BaseCompoundStatement) -> None:
        if isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            self.local.add(stmt.name.value)
            self._type_params(stmt.type_parameters)
        if isinstance(stmt, cst.FunctionDef):
            params = stmt.params
            for param in (*params.posonly_params, *params.params, *params.kwonly_params):
                self.local.add(param.name.value)
            for star in (params.star_arg, params.star_kwarg):
                if isinstance(star, cst.Param):
                    self.local.add(star.name.value)
        elif isinstance(stmt, cst.For):
            self.local.update(_targets(stmt.target))
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                if item.asname is not None:
                    self.local.update(_targets(item.asname.name))
        elif isinstance(stmt, cst.Match):
            for case in stmt.cases:
                self.local.update(_captures(case.pattern))
                self._block(case.body)
            return
        for handler in getattr(stmt, "handlers", ()):  # Try and TryStar (except*)
            if handler.name is not None:
                self.local.update(_targets(handler.name.name))
            self._block(handler.body)
        for child in stmt.children:
            if isinstance(child, cst.BaseSuite):
                self._block(child)
            elif isinstance(child, cst.BaseCompoundStatement):  # elif chains
                self._compound(child)
            elif isinstance(child, cst.Else | cst.Finally):
                self._block(child.body)

    def _block(self, block: cst.BaseSuite) -> None:
        self._walk(block.body if isinstance(block, cst.IndentedBlock) else [block])

    def _type_params(self, params: cst.TypeParameters | None) -> None:
        if params is not None:
            for param in params.params:
                self.local.add(param.param.name.value)

    def _small(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Import):
            for alias in small.names:
                name = dotted(alias.name) or ""
                self.modules.append(name)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    self._bind_import(alias.asname.name.value, name)
                else:
                    self._bind_import(name.split(".")[0], name.split(".")[0])
        elif isinstance(small, cst.ImportFrom):
            module = dotted(small.module) or ""
            if small.relative:
                if not self.name:
                    return
                module = absolute_module(self.name, self.package, len(small.relative), module or None)
            self.modules.append(module)
            if isinstance(small.names, cst.ImportStar):
                self.star = True
                return
            for alias in small.names:
                name = dotted(alias.name) or ""
                local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
                self._bind_import(local, f"{module}.{name}")
        elif isinstance(small, cst.Assign):
            for target in small.targets:
                self.local.update(_targets(target.target))
        elif isinstance(small, cst.AnnAssign | cst.AugAssign):
            self.local.update(_targets(small.target))
        elif isinstance(small, cst.Global | cst.Nonlocal):
            self.local.update(n.name.value for n in small.names)
        elif isinstance(small, cst.TypeAlias):
            self.local.add(small.name.value)
            self._type_params(small.type_parameters)

    def qualified(self, node: cst.CSTNode) -> set[str]:
        text = dotted(node) if isinstance(node, cst.Name | cst.Attribute) else None
        if text is None:
            return set()
        root, _, rest = text.partition(".")
        found = self.imports.get(root)
        if not found:
            return set()
        return {f"{q}.{rest}" if rest else q for q in found}

    def bound(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Name) and (node.value in self.imports or node.value in self.local)


def statement_lines(code: str) -> list[tuple[int, int]]:
    """(first line, last line) of every libcst statement, in libcst's visiting order.

    libcst's position provider costs a full code generation per file; the stdlib parser gives the
    same lines for statements almost for free. libcst statements are compound statements and
    ``SimpleStatementLine`` (small statements that start a line, plus any that follow on that
    line); small statements after a compound's colon on the same line form a suite, not a
    statement. A decorated definition starts at its first decorator.
    """
    import ast

    lines = code.splitlines()
    out: list[tuple[int, int]] = []
    state = {"simple_line": -1}

    def starts_line(stmt: ast.stmt) -> bool:
        text = lines[stmt.lineno - 1] if stmt.lineno - 1 < len(lines) else ""
        indent = len(text.encode("utf-8")) - len(text.lstrip().encode("utf-8"))
        return stmt.col_offset == indent

    def visit(stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            if isinstance(stmt, COMPOUND):
                state["simple_line"] = -1
                decorators = getattr(stmt, "decorator_list", [])
                out.append((min([stmt.lineno, *(d.lineno for d in decorators)]), stmt.end_lineno or stmt.lineno))
                for field in ("body", "handlers", "orelse", "finalbody", "cases"):
                    for child in getattr(stmt, field, []):
                        if isinstance(child, ast.stmt):
                            visit([child])
                        else:  # except handler / match case
                            visit(child.body)
                state["simple_line"] = -1
            elif starts_line(stmt):
                out.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
                state["simple_line"] = stmt.lineno
            elif stmt.lineno == state["simple_line"]:
                first, end = out[-1]
                out[-1] = (first, max(end, stmt.end_lineno or stmt.lineno))

    visit(ast.parse(code).body)
    return out


def _compound_types() -> tuple[type, ...]:
    import ast

    return (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For, ast.AsyncFor, ast.While,
            ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match)


COMPOUND = _compound_types()

"""Import housekeeping after a rule removed the last use of an imported name."""

from __future__ import annotations

import re

import libcst as cst


def _module_name(node: cst.BaseExpression | None) -> str:
    return cst.Module([]).code_for_node(node) if node is not None else ""


def drop_unused(module: cst.Module, names: dict[str, frozenset[str]]) -> cst.Module:
    """Remove ``from <module> import <name>`` (``names``: module -> names) at module level when the
    name occurs nowhere else in the file (a mention in a string or comment keeps it: conservative).
    An import statement left empty disappears; its leading comments move to the next statement."""
    code = module.code
    body: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []
    changed = False
    for stmt in module.body:
        if carried and hasattr(stmt, "leading_lines"):
            stmt = stmt.with_changes(leading_lines=[*carried, *stmt.leading_lines])
            carried = []
        imp = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        wanted = names.get(_module_name(imp.module)) if isinstance(imp, cst.ImportFrom) and not imp.relative else None
        if not wanted or isinstance(imp, cst.ImportFrom) and isinstance(imp.names, cst.ImportStar):
            body.append(stmt)
            continue
        assert isinstance(imp, cst.ImportFrom) and not isinstance(imp.names, cst.ImportStar)
        kept = [alias for alias in imp.names
                if not (alias.asname is None and isinstance(alias.name, cst.Name) and alias.name.value in wanted
                        and len(re.findall(rf"\b{re.escape(alias.name.value)}\b", code)) == 1)]
        if len(kept) == len(imp.names):
            body.append(stmt)
            continue
        changed = True
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            body.append(stmt.with_changes(body=[imp.with_changes(names=kept)]))
        else:
            carried = [line for line in stmt.leading_lines if line.comment is not None]
    return module.with_changes(body=body) if changed else module


def add_imports(module: cst.Module, lines: list[str]) -> cst.Module:
    """Add import statements (``"import x\\n"`` source lines) missing from ``module`` after its
    last top-level import (the module docstring and ``__future__`` imports stay first)."""
    code = module.code
    missing = [line for line in lines if line not in code]
    if not missing:
        return module
    body = list(module.body)
    position = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Import | cst.ImportFrom):
            position = i + 1
        elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr):
            position = 1
    new = [cst.parse_statement(line) for line in missing]
    return module.with_changes(body=[*body[:position], *new, *body[position:]])

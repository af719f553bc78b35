"""Module-level import edits that keep one statement per module: add a name to an existing
``from <module> import ...`` (or add the statement), and drop repeated ``import <module>`` lines."""

from __future__ import annotations

import re

import libcst as cst

from mcp_eras.migrate.resolve import dotted
from mcp_eras.migrate.rules._lib.context import MARKER_PREFIX
from mcp_eras.migrate.rules._lib.imports import add_imports


def _from_import(stmt: cst.BaseStatement) -> cst.ImportFrom | None:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.ImportFrom):
        imp = stmt.body[0]
        if not imp.relative and not isinstance(imp.names, cst.ImportStar):
            return imp
    return None


def add_name(module: cst.Module, source: str, name: str) -> cst.Module:
    """Make ``name`` importable from ``source`` at module level: appended to the first top-level
    ``from <source> import ...`` (names kept sorted when they were), else a new statement."""
    for i, stmt in enumerate(module.body):
        imp = _from_import(stmt)
        if imp is None or dotted(imp.module) != source:
            continue
        assert not isinstance(imp.names, cst.ImportStar)
        present = [a.evaluated_name for a in imp.names]
        if name in present:
            return module
        names = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in imp.names]
        alias = cst.ImportAlias(name=cst.Name(name))
        if imp.lpar is not None:
            return module  # a parenthesised multi-line import: leave its layout, add a statement below
        at = len(names)
        if present == sorted(present):
            at = next((k for k, existing in enumerate(present) if existing > name), len(names))
        names.insert(at, alias)
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        body = list(module.body)
        body[i] = stmt.with_changes(body=[imp.with_changes(names=names)])  # type: ignore[attr-defined]
        return module.with_changes(body=body)
    return add_imports(module, [f"from {source} import {name}\n"])


def drop_repeated_imports(module: cst.Module, name: str) -> cst.Module:
    """Remove top-level ``import <name>`` statements after the first one (a rename can make two)."""
    body: list[cst.BaseStatement] = []
    seen = False
    for stmt in module.body:
        if (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Import)
                and len(stmt.body[0].names) == 1 and stmt.body[0].names[0].asname is None
                and dotted(stmt.body[0].names[0].name) == name):
            if seen:
                continue
            seen = True
        body.append(stmt)
    return module if len(body) == len(module.body) else module.with_changes(body=body)


def drop_unused_module(module: cst.Module, name: str) -> cst.Module:
    """Remove a top-level ``import <name>`` when the word ``name`` occurs nowhere else in the file (a
    rule just replaced its last use; a mention in a string or comment keeps it: conservative; the
    markers of this run do not count, so the result is the same with and without ``--markers``)."""
    code = "\n".join(line for line in module.code.splitlines() if not line.lstrip().startswith(MARKER_PREFIX))
    if len(re.findall(rf"\b{re.escape(name)}\b", code)) != 1:
        return module
    body: list[cst.BaseStatement] = []
    carried: list[cst.EmptyLine] = []
    first = False  # the dropped import opened the file
    for stmt in module.body:
        if (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Import)
                and len(stmt.body[0].names) == 1 and stmt.body[0].names[0].asname is None
                and dotted(stmt.body[0].names[0].name) == name):
            carried = [line for line in stmt.leading_lines if line.comment is not None]
            first = not body
            continue
        if carried and hasattr(stmt, "leading_lines"):
            stmt = stmt.with_changes(leading_lines=[*carried, *stmt.leading_lines])
            carried = []
        if not body and first and hasattr(stmt, "leading_lines"):  # it opens the file now: no blank line first
            lines = list(stmt.leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            stmt = stmt.with_changes(leading_lines=lines)
        body.append(stmt)
    return module if len(body) == len(module.body) else module.with_changes(body=body)

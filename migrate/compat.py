"""Syntax newer than the running interpreter: check what can be checked, never crash.

libcst parses Python 3.0-3.13 whatever interpreter runs it; the stdlib parser (``ast.parse``,
``compile()``) only knows its own version. On Python 3.11 a module with PEP 695 syntax (``type``
aliases, ``def f[T]()``, ``class C[T]``; 3.12) is valid for libcst and a SyntaxError for
``compile()``. ``lowered()`` rewrites exactly those constructs into 3.11 syntax on the same lines
(type parameter lists dropped, ``type X = v`` -> ``X = v``), so the project index, statement lines
and the compile-safety check still run over everything else in the file.
"""

from __future__ import annotations

import sys

import libcst as cst

RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"
NEWER_SYNTAX = "PEP 695 type parameters/`type` aliases (Python 3.12+)"


class _Lower(cst.CSTTransformer):
    def __init__(self) -> None:
        super().__init__()
        self.changed = False

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if updated_node.type_parameters is None:
            return updated_node
        self.changed = True
        return updated_node.with_changes(type_parameters=None, whitespace_after_type_parameters=cst.SimpleWhitespace(""))

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        if updated_node.type_parameters is None:
            return updated_node
        self.changed = True
        return updated_node.with_changes(type_parameters=None, whitespace_after_type_parameters=cst.SimpleWhitespace(""))

    def leave_TypeAlias(self, original_node: cst.TypeAlias, updated_node: cst.TypeAlias) -> cst.Assign:
        self.changed = True
        return cst.Assign(targets=[cst.AssignTarget(updated_node.name)], value=updated_node.value)


def lowered(code: str) -> str | None:
    """``code`` with PEP 695 syntax rewritten for the running parser (same line numbers), or None
    when libcst cannot parse it or there was nothing to lower."""
    if sys.version_info >= (3, 12):
        return None
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError:
        return None
    lower = _Lower()
    new = module.visit(lower)
    return new.code if lower.changed else None


def compiles(code: str, path: str) -> str | None:
    """None when ``code`` compiles on this interpreter (after lowering newer syntax it cannot
    read), else the reason."""
    try:
        compile(code, path, "exec", dont_inherit=True)
        return None
    except (SyntaxError, ValueError) as exc:
        first = exc
    low = lowered(code)
    if low is None:
        return str(first)
    try:
        compile(low, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return str(exc)
    return None

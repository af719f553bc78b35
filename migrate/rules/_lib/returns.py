"""The ``return`` statements of one function (not of the functions, lambdas and classes it contains)."""

from __future__ import annotations

import libcst as cst


def own_returns(func: cst.FunctionDef) -> list[cst.Return]:
    found: list[cst.Return] = []
    stack: list[cst.CSTNode] = [func.body]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Return):
            found.append(current)
        elif isinstance(current, cst.FunctionDef | cst.ClassDef | cst.Lambda):
            continue
        stack.extend(current.children)
    return found

"""The cheap statement lines (stdlib parser) must equal libcst's positions statement by statement."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider
from migrate_corpus import examples_dir

from mcp_eras.migrate.resolve import statement_lines
from mcp_eras.migrate.rules.base import STATEMENT_CLASSES

TRICKY = textwrap.dedent(
    '''
    import os; import sys
    if os: x = 1
    elif sys: y = 2; z = 3
    else:
        if x:
            pass
    @decorator
    @other(
        arg=1,
    )
    def f(a,
          b):
        for i in a: pass
        try: g()
        except Exception: h()
        finally: k()
        match a:
            case 1:
                return (
                    1
                )
            case _: pass
    class C: pass
    with open("x") as f2, open("y") as f3: w = f2.read(); w2 = 1
    '''
)


def libcst_lines(code: str) -> list[tuple[int, int]]:
    wrapper = MetadataWrapper(cst.parse_module(code), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    out: list[tuple[int, int]] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if type(node) in STATEMENT_CLASSES:
                span = positions[node]
                decorators = getattr(node, "decorators", ())
                start = positions[decorators[0]].start.line if decorators else span.start.line
                out.append((start, span.end.line))
            return True

    wrapper.module.visit(Collect())
    return out


def test_tricky_layouts() -> None:
    assert statement_lines(TRICKY) == libcst_lines(TRICKY)


@pytest.mark.slow
def test_every_corpus_file() -> None:
    files = sorted(Path(examples_dir()).rglob("*.py"))
    assert len(files) > 100
    for path in files:
        code = path.read_text(encoding="utf-8")
        assert statement_lines(code) == libcst_lines(code), path

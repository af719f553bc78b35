"""Acceptance: the pure core (bridge/translate) imports nothing that does I/O or reads a clock."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TRANSLATE = Path(__file__).resolve().parents[2] / "bridge" / "translate"
FORBIDDEN = {"asyncio", "anyio", "httpx", "starlette", "time", "socket"}
MODULES = sorted(TRANSLATE.glob("*.py"))


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_check_sees_imports() -> None:
    assert len(MODULES) >= 5
    assert "orjson" in imported_roots(TRANSLATE / "legacy_upstream.py")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_io_or_clock_imports(path: Path) -> None:
    assert not imported_roots(path) & FORBIDDEN, f"{path.name} imports {sorted(imported_roots(path) & FORBIDDEN)}"

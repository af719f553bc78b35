"""Acceptance: the pure core (bridge/translate) imports nothing that does I/O or reads a clock."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TRANSLATE = Path(__file__).resolve().parents[2] / "bridge" / "translate"
FORBIDDEN = {"asyncio", "anyio", "httpx", "starlette", "time", "socket"}
MODULES = sorted(TRANSLATE.rglob("*.py"))
SHELLS = ("front", "upstream", "layers", "store", "scaleout", "fleet", "core", "config", "observe")


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
    assert "orjson" in imported_roots(TRANSLATE / "legacy_server" / "frames.py")
    assert {p.parent.name for p in MODULES} >= {"translate", "legacy_server", "legacy_client"}


def bridge_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mcp_eras.bridge."):
            names.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[2] for a in node.names if a.name.startswith("mcp_eras.bridge.")}
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_io_or_clock_imports(path: Path) -> None:
    assert not imported_roots(path) & FORBIDDEN, f"{path.name} imports {sorted(imported_roots(path) & FORBIDDEN)}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(TRANSLATE)))
def test_no_shell_imports(path: Path) -> None:
    """The pure core never reaches back into the shells that drive it."""
    assert not bridge_imports(path) & set(SHELLS), f"{path.name} imports {sorted(bridge_imports(path) & set(SHELLS))}"


MRTR_MACHINES = (TRANSLATE / "legacy_server" / "call.py", TRANSLATE / "legacy_client" / "mrtr.py")


@pytest.mark.parametrize("path", MRTR_MACHINES, ids=lambda p: str(p.relative_to(TRANSLATE)))
def test_both_mrtr_machines_speak_the_shared_step_vocabulary(path: Path) -> None:
    """Direction A and direction B return the steps of ``translate/mrtr_steps.py`` and define none of their own."""
    tree = ast.parse(path.read_text(), str(path))
    vocabulary = {a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                  and node.module == "mcp_eras.bridge.translate.mrtr_steps" for a in node.names}
    assert {"AskClient", "Finish", "Step"} <= vocabulary, f"{path.name} imports {sorted(vocabulary)} of mrtr_steps"
    own = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    steps = ast.parse((TRANSLATE / "mrtr_steps.py").read_text())
    shared = {node.name for node in ast.walk(steps) if isinstance(node, ast.ClassDef)}
    assert len(shared) >= 6 and not own & shared
    assert not own & {"Ask", "Retry", "Send", "Notify", "Park", "Reply", "MrtrAbort"}, f"{path.name} defines {sorted(own)}"

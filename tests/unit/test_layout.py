"""The shape of the code base, as a newcomer relies on it: no import cycle, no file over 600 lines, the decisions in the
pure core, every ``Upstream`` layer in one package.

The import graph is static and complete: every ``import`` anywhere in a module (top level, inside functions, under
``TYPE_CHECKING``) is an edge, because each is a dependency a reader has to follow.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"mcp_eras": ROOT / "mcp_eras", "mcp_eras.bridge": ROOT / "bridge", "mcp_eras.migrate": ROOT / "migrate"}
MAX_LINES = 600
PURE_SHARE = 0.40


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for prefix, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if prefix == "mcp_eras" and parts[0] in ("bridge", "migrate"):
                continue
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([prefix, *parts])] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    """The project modules ``name`` imports: ``from a.b import c`` names ``a.b.c`` when that is a module, else ``a.b``."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package[: len(package) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_graph_sees_function_level_imports() -> None:
    known = modules()
    edges = set(imports_of("mcp_eras.bridge.launch", known["mcp_eras.bridge.launch"], known))
    assert edges, "launch imports project modules"


def test_no_import_cycle() -> None:
    known = modules()
    graph = {name: set(imports_of(name, path, known)) for name, path in known.items()}
    assert cycles(graph) == []


def python_files() -> list[Path]:
    skip = {".venv", ".venvs", ".git", "data", ".cache", "node_modules"}
    return sorted(p for p in ROOT.rglob("*.py") if not skip & set(p.relative_to(ROOT).parts))


@pytest.mark.parametrize("path", python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_file_over_600_lines(path: Path) -> None:
    assert len(path.read_text().splitlines()) <= MAX_LINES


def code_lines(folder: Path, *, exclude: tuple[str, ...] = ()) -> int:
    """Lines that are neither blank nor only a comment (docstrings count: they state the rules the code keeps)."""
    return sum(1 for p in folder.rglob("*.py") if not set(p.relative_to(folder).parts) & set(exclude)
               for line in p.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#"))


def test_the_pure_core_holds_the_decisions() -> None:
    """``bridge/translate`` (no I/O: tests/unit/test_translate_purity.py) holds at least 40% of the bridge's code outside
    the fleet mode."""
    bridge = ROOT / "bridge"
    share = code_lines(bridge / "translate") / code_lines(bridge, exclude=("fleet",))
    assert share >= PURE_SHARE, f"translate/ holds {share:.1%} of the bridge's non-fleet lines"


def upstream_classes() -> Iterator[tuple[Path, ast.ClassDef]]:
    for path in (ROOT / "bridge").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(b, ast.Name) and b.id == "Upstream" or isinstance(b, ast.Attribute) and b.attr == "Upstream"
                    for b in node.bases):
                yield path, node


def test_every_upstream_layer_is_in_one_package() -> None:
    """A class of ``Upstream`` that wraps another (it sets ``self.inner``) lives in ``bridge/layers``; the real
    upstreams live in ``bridge/upstream``; nowhere else defines one."""
    found = list(upstream_classes())
    assert len(found) >= 6
    for path, cls in found:
        folder = path.relative_to(ROOT / "bridge").parts[0]
        wraps = any(isinstance(t, ast.Attribute) and t.attr == "inner" and isinstance(t.value, ast.Name) and t.value.id == "self"
                    for n in ast.walk(cls) if isinstance(n, ast.Assign) for t in n.targets)
        assert folder in ("layers", "upstream"), f"{cls.name} is defined in {path.relative_to(ROOT)}"
        if folder == "upstream":
            assert not wraps or cls.name == "AutoUpstream", f"{cls.name} wraps another upstream outside bridge/layers"


def test_test_modules_have_unique_names() -> None:
    """pytest's default import mode puts each test folder on ``sys.path``: two test modules of one name cannot both be
    collected in one run (the second is refused as an import file mismatch)."""
    from collections import Counter

    names = Counter(p.name for p in (ROOT / "tests").rglob("*.py")
                    if p.name.startswith("test_") and "data" not in p.relative_to(ROOT / "tests").parts)
    assert [name for name, count in names.items() if count > 1] == []

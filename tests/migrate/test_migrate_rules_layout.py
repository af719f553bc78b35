"""Catalogue layout: rules never import other rules (shared code lives in ``mcp_eras.migrate.rules._lib``);
every rule has its own test module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from mcp_eras.migrate import rules

RULES = Path(rules.__file__).parent
TESTS = Path(__file__).parent


def test_no_rule_module_imports_another_rule_module() -> None:
    offenders = []
    for path in sorted(RULES.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [module or ""]
            if any(n.startswith("mcp_eras.migrate.rules.mcp") for n in names):
                offenders.append(f"{path.name} imports {names}")
    assert offenders == []


def test_no_module_of_the_catalogue_is_over_600_lines() -> None:
    for path in [*RULES.glob("*.py"), *(RULES / "_lib").glob("*.py")]:
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 600, path.name


def test_every_rule_has_its_own_test_module() -> None:
    """``tests/migrate/rules/test_mcpNNN.py`` for every rule, as bump-pydantic has; a rule whose module is
    not written yet keeps a positive and a negative row in test_migrate_rules_table.py meanwhile."""
    pending = TESTS / "test_migrate_rules_table.py"
    table = pending.read_text(encoding="utf-8") if pending.exists() else ""
    positive = set(re.findall(r'Case\("(MCP\d+)"', table))
    negative = set(re.findall(r'^    \("(MCP\d+)",', table, re.M))
    missing = [r.META.id for r in rules.all_rules()
               if not (TESTS / "rules" / f"test_{r.META.id.lower()}.py").exists()
               and not {r.META.id} <= positive & negative]
    assert missing == []


def test_base_is_split_by_concept_and_only_re_exports() -> None:
    """``rules/base.py`` keeps one import for the rule modules, but defines nothing: each concept lives in
    its own ``_lib`` module (context, transformer, detectors, rename)."""
    from mcp_eras.migrate.rules import base

    tree = ast.parse((RULES / "base.py").read_text(encoding="utf-8"))
    assert [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Assign)
            and not (isinstance(n, ast.Assign) and n.targets[0].id == "__all__")] == []  # type: ignore[attr-defined]
    homes = {value.__module__ for value in (getattr(base, name) for name in base.__all__) if callable(value)}
    assert homes <= {"mcp_eras.migrate.resolve", *(f"mcp_eras.migrate.rules._lib.{m}" for m in
                                                   ("context", "transformer", "detectors", "rename"))}
    assert len(homes) >= 4

"""MCP011 httpx-undeclared: own ``import httpx`` relied on mcp v1 to install httpx -> declare it.

``Rule`` adds the requirement next to ``mcp`` in the manifests that require it. ``PythonRule``
covers a project with no manifest at all (a folder of scripts): the ``httpx`` import itself is
reported, since nothing would declare it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer, dotted
from mcp_eras.migrate.rules.undeclared import UndeclaredDependency

META = RuleMeta("MCP011", "httpx-undeclared", Kind.REQUIRED, Safety.REVIEW,
                "Own `import httpx` relied on mcp v1 to install httpx -> declare `httpx`",
                "httpx-and-httpx-sse-replaced-by-httpx2")
MANIFESTS = ("pyproject.toml", "setup.cfg", "setup.py", "Pipfile")


class Rule(UndeclaredDependency):
    META = META
    MODULES = frozenset({"httpx"})
    PACKAGE = "httpx"
    SPEC = ">=0.27"


@cache
def has_manifest(folder: str) -> bool:
    """True when ``folder`` or a parent up to the checkout root holds a dependency manifest."""
    for parent in (Path(folder), *Path(folder).parents):
        if any((parent / name).is_file() for name in MANIFESTS) or any(parent.glob("requirements*.txt")):
            return True
        if (parent / ".git").exists():
            return False
    return False


class PythonRule(RuleTransformer):
    META = META
    TRIGGERS = ("httpx",)
    MESSAGE = ("mcp v1 installed httpx for you; v2 does not (it uses httpx2) and no manifest declares it: "
               "add `httpx>=0.27` to your dependencies, or port this code to httpx2")

    def _check(self, node: cst.Import | cst.ImportFrom, modules: list[str]) -> None:
        if any(m == "httpx" or m.startswith("httpx.") for m in modules) and not has_manifest(
                str(Path(self.ctx.path).absolute().parent)):
            self.report(node, self.MESSAGE, fixed=False)

    def visit_Import(self, node: cst.Import) -> bool:
        self._check(node, [dotted(a.name) or "" for a in node.names])
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if not node.relative:
            self._check(node, [dotted(node.module) or ""])
        return False

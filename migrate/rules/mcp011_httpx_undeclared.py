"""MCP011 httpx-undeclared: own ``import httpx`` relied on mcp v1 to install httpx -> declare it."""

from __future__ import annotations

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.undeclared import UndeclaredDependency


class Rule(UndeclaredDependency):
    META = RuleMeta("MCP011", "httpx-undeclared", Kind.REQUIRED, Safety.REVIEW,
                    "Own `import httpx` relied on mcp v1 to install httpx -> declare `httpx`")
    MODULES = frozenset({"httpx"})
    PACKAGE = "httpx"
    SPEC = ">=0.27"

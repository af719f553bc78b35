"""MCP027 pydantic-settings-undeclared: own ``pydantic_settings`` import relied on mcp v1 -> declare it."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.undeclared import UndeclaredDependency


class Rule(UndeclaredDependency):
    META = RuleMeta("MCP027", "pydantic-settings-undeclared", Kind.REQUIRED, Safety.REVIEW,
                    "Own `pydantic_settings` import relied on mcp v1 to install it -> declare `pydantic-settings`",
                    "mcp_-environment-variables-and-env-files-are-no-longer-read")
    MODULES = frozenset({"pydantic_settings"})
    PACKAGE = "pydantic-settings"
    SPEC = ">=2.5.2"

"""MCP222 env-settings-not-read: ``FASTMCP_*`` environment variables and ``.env`` files are no
longer read (v2 ``Settings`` is not a pydantic-settings ``BaseSettings``)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP222",
        "env-settings-not-read",
        Kind.ADVISORY,
        Safety.REPORT,
        "`Settings` no longer reads `FASTMCP_*` environment variables or `.env`",
        "mcp_-environment-variables-and-env-files-are-no-longer-read",
    )
    TRIGGERS = ("FASTMCP_",)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if isinstance(value, str) and value.startswith("FASTMCP_"):
            self.report(node, f"{value} is no longer read by the server: pass the value to the constructor or run()", fixed=False)

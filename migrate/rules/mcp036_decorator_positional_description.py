"""MCP036 decorator-positional-description: before 1.10, ``@mcp.tool(name, description)`` took the
description second; since 1.10 (and in v2) the second positional is ``title``. Which one the code
meant depends on the v1 version it was written for, so the site is reported, not rewritten."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP036",
        "decorator-positional-description",
        Kind.REQUIRED,
        Safety.REPORT,
        "Pre-1.10 positional `description` in `@mcp.tool(name, description)` now lands in `title`",
    )
    TRIGGERS = (".tool(", ".prompt(", "add_tool(")
    METHODS = frozenset({"tool", "prompt", "add_tool"})
    RECEIVERS = SERVER_CLASS
    MESSAGE = "the second positional argument is `title` since 1.10: pass description=/title= by keyword"

    def is_site(self, node: cst.Call) -> bool:
        if not super().is_site(node):
            return False
        positional = [a for a in node.args if a.keyword is None and not a.star]
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
        return len(positional) >= (3 if method == "add_tool" else 2)

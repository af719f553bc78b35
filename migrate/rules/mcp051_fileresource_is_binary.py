"""MCP051 fileresource-is-binary: ``FileResource(is_binary=...)`` -> ``encoding=`` (unknown kwargs raise in v2)."""

from __future__ import annotations

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP051",
        "fileresource-is-binary",
        Kind.REQUIRED,
        Safety.REPORT,
        "`FileResource(is_binary=...)` -> `encoding=` (unknown kwargs now raise)",
        "fileresourceis_binary-replaced-by-encoding",
    )
    TRIGGERS = ("is_binary",)
    CALLEES = frozenset(
        {
            "mcp.server.fastmcp.resources.FileResource",
            "mcp.server.fastmcp.resources.types.FileResource",
            "mcp.server.mcpserver.resources.FileResource",
            "mcp.server.mcpserver.resources.types.FileResource",
        }
    )
    KEYWORDS = frozenset({"is_binary"})
    MESSAGE = "is_binary= is gone: is_binary=True -> encoding=None; is_binary=False -> drop it (text is the default)"

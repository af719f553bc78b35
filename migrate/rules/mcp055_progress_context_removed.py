"""MCP055 progress-context-removed: ``mcp.shared.progress`` was removed; the replacement takes absolute values."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP055",
        "progress-context-removed",
        Kind.REQUIRED,
        Safety.REPORT,
        "`mcp.shared.progress` (`progress()`, `ProgressContext`) removed",
        "progresscontext-and-progress-context-manager-removed",
    )
    TRIGGERS = ("progress",)
    PREFIXES = ("mcp.shared.progress",)
    MESSAGE = "mcp.shared.progress was removed: report absolute progress with ctx.report_progress()"

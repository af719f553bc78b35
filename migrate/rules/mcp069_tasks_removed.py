"""MCP069 tasks-removed: the experimental Tasks API is gone in v2; no mechanical port exists."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP069",
        "tasks-removed",
        Kind.REQUIRED,
        Safety.REPORT,
        "Experimental Tasks API removed (`mcp.*.experimental`, task execution modes)",
        "experimental-tasks-support-removed",
    )
    TRIGGERS = ("CreateTaskResult", "TASK_FORBIDDEN", "TASK_OPTIONAL", "TASK_REQUIRED", "TaskExecutionMode", "experimental")
    NAMES = frozenset(
        [
            "mcp.types.CreateTaskResult",
            "mcp.types.TASK_FORBIDDEN",
            "mcp.types.TASK_OPTIONAL",
            "mcp.types.TASK_REQUIRED",
            "mcp.types.TaskExecutionMode",
        ]
    )
    PREFIXES = ("mcp.server.experimental", "mcp.client.experimental", "mcp.shared.experimental")
    MESSAGE = "the experimental Tasks API was removed in v2: port this by hand (no v2 equivalent)"

"""MCP072 terminate-windows-process: ``terminate_windows_process`` was removed."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP072",
        "terminate-windows-process",
        Kind.REQUIRED,
        Safety.REPORT,
        "`mcp.os.win32.utilities.terminate_windows_process` removed",
        "terminate_windows_process-removed",
    )
    TRIGGERS = ("terminate_windows_process",)
    NAMES = frozenset(["mcp.os.win32.utilities.terminate_windows_process"])
    MESSAGE = "terminate_windows_process was removed: use terminate_windows_process_tree (no timeout_seconds)"

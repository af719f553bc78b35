"""MCP080 memory-streams-api: memory streams yield context-propagating wrappers."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP080",
        "memory-streams-api",
        Kind.REQUIRED,
        Safety.REPORT,
        "`create_client_server_memory_streams()` wrappers lack `send_nowait`/`receive_nowait`/`statistics()`",
        "create_connected_server_and_client_session-removed",
    )
    TRIGGERS = ("create_client_server_memory_streams",)
    NAMES = frozenset(["mcp.shared.memory.create_client_server_memory_streams"])
    MESSAGE = "memory stream wrappers have no send_nowait/receive_nowait/statistics(): check the calls on them"

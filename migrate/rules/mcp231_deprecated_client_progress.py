"""MCP231 deprecated-client-progress: client-to-server progress is deprecated."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP231",
        "deprecated-client-progress",
        Kind.ADVISORY,
        Safety.REPORT,
        "Client->server progress deprecated (`send_progress_notification` on the client)",
        "client-to-server-progress-deprecated-2026-07-28",
    )
    TRIGGERS = ("send_progress_notification",)
    METHODS = frozenset(
        {
            "send_progress_notification",
        }
    )
    RECEIVERS = frozenset(
        {
            "mcp.ClientSession",
            "mcp.client.session.ClientSession",
        }
    )
    MESSAGE = "client-to-server progress is deprecated (2026-07-28)"

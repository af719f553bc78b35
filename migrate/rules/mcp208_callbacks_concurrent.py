"""MCP208 callbacks-concurrent: client callbacks and notifications run concurrently (no ordering);
raising callbacks answer code 0."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP208",
        "callbacks-concurrent",
        Kind.ADVISORY,
        Safety.REPORT,
        "Client callbacks and notifications run concurrently (no ordering); raising callbacks answer code 0",
        "clientsession-now-runs-on-jsonrpcdispatcher-basesession-removed",
    )
    TRIGGERS = ("_callback", "message_handler")
    CALLEES = frozenset(
        {
            "mcp.Client",
            "mcp.ClientSession",
            "mcp.client.Client",
            "mcp.client.client.Client",
            "mcp.client.session.ClientSession",
            # v1's in-memory helper: MCP023 turns it into `Client(...)`, so it is reported before that too
            "mcp.shared.memory.create_connected_server_and_client_session",
        }
    )
    KEYWORDS = frozenset(
        {
            "elicitation_callback",
            "list_roots_callback",
            "logging_callback",
            "message_handler",
            "sampling_callback",
        }
    )
    MESSAGE = "client callbacks now run concurrently (no ordering guarantee); a raising callback answers code 0"

"""MCP229 deprecated-ping: ``send_ping()`` warns: ping is removed in 2026-07-28."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SESSION_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP229",
        "deprecated-ping",
        Kind.ADVISORY,
        Safety.REPORT,
        "`Client.send_ping()` warns (ping removed in 2026-07-28)",
        "deprecations",
    )
    TRIGGERS = ("send_ping",)
    METHODS = frozenset(
        {
            "send_ping",
        }
    )
    RECEIVERS = SESSION_CLASS
    MESSAGE = "send_ping() is deprecated (removed in 2026-07-28)"

"""MCP212 deprecated-logging: protocol logging is deprecated (SEP-2577); 2026-era delivery needs a
per-request opt-in."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS, SESSION_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP212",
        "deprecated-logging",
        Kind.ADVISORY,
        Safety.REPORT,
        "Protocol logging deprecated (SEP-2577): `ctx.debug/info/warning/error/log`, `send_log_message`",
        "roots-sampling-and-logging-methods-deprecated-sep-2577",
    )
    TRIGGERS = ("info(", "debug(", "warning(", "error(", "log(", "send_log_message")
    METHODS = frozenset(
        {
            "debug",
            "error",
            "info",
            "log",
            "send_log_message",
            "warning",
        }
    )
    RECEIVERS = CONTEXT_CLASS | SESSION_CLASS
    MESSAGE = "protocol logging is deprecated (SEP-2577): 2026-07-28 clients only get it when a request opts in"

"""MCP210 deprecated-sampling: sampling is deprecated (SEP-2577) and emits ``MCPDeprecationWarning``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS, SESSION_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP210",
        "deprecated-sampling",
        Kind.ADVISORY,
        Safety.REPORT,
        "Sampling deprecated (SEP-2577): `ctx.session.create_message()`, `sampling_callback=`",
        "roots-sampling-and-logging-methods-deprecated-sep-2577",
    )
    TRIGGERS = ("create_message",)
    METHODS = frozenset(
        {
            "create_message",
        }
    )
    RECEIVERS = CONTEXT_CLASS | SESSION_CLASS
    MESSAGE = "sampling is deprecated (SEP-2577) and warns MCPDeprecationWarning"

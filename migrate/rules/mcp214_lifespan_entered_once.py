"""MCP214 lifespan-entered-once: streamable HTTP enters ``lifespan`` once at manager start (was per
session)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER, SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP214",
        "lifespan-entered-once",
        Kind.ADVISORY,
        Safety.REPORT,
        "Streamable HTTP enters `lifespan` once at manager start (was per session / per stateless request)",
        "streamable-http-lifespan-now-entered-once-at-manager-startup",
    )
    TRIGGERS = ("lifespan=",)
    CALLEES = SERVER_CLASS | LOWLEVEL_SERVER
    KEYWORDS = frozenset(
        {
            "lifespan",
        }
    )
    MESSAGE = "with streamable HTTP the lifespan is entered once at startup, not per session: per-session state must move"

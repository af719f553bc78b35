"""MCP213 deprecated-roots: roots are deprecated (SEP-2577)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SESSION_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP213",
        "deprecated-roots",
        Kind.ADVISORY,
        Safety.REPORT,
        "Roots deprecated (SEP-2577): `session.list_roots()`, `list_roots_callback=`, `send_roots_list_changed()`",
        "roots-sampling-and-logging-methods-deprecated-sep-2577",
    )
    TRIGGERS = ("send_roots_list_changed",)
    METHODS = frozenset(
        {
            "send_roots_list_changed",
        }
    )
    RECEIVERS = SESSION_CLASS
    MESSAGE = "roots are deprecated (SEP-2577) and warn MCPDeprecationWarning"

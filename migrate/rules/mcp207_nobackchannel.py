"""MCP207 nobackchannel: server-initiated requests raise ``NoBackChannelError`` on 2026-07-28
connections, stateless HTTP and json_response channels."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS, SESSION_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP207",
        "nobackchannel",
        Kind.ADVISORY,
        Safety.REPORT,
        "Server-initiated requests (`ctx.elicit`, `create_message`, `list_roots`) raise `NoBackChannelError` on 2026 connections",
        "server-initiated-sampling-elicitation-and-roots-raise-nobackchannelerror",
    )
    TRIGGERS = ("elicit", "create_message", "list_roots")
    METHODS = frozenset(
        {
            "create_message",
            "elicit",
            "elicit_form",
            "elicit_url",
            "list_roots",
        }
    )
    RECEIVERS = CONTEXT_CLASS | SESSION_CLASS
    MESSAGE = "server-to-client request: raises NoBackChannelError on 2026-07-28 connections, stateless HTTP and json_response channels"

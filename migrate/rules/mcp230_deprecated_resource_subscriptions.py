"""MCP230 deprecated-resource-subscriptions: client resource subscriptions are deprecated; 2026 servers
answer -32601."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SESSION_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP230",
        "deprecated-resource-subscriptions",
        Kind.ADVISORY,
        Safety.REPORT,
        "`subscribe_resource`/`unsubscribe_resource` on Client/ClientSession warn; 2026 servers answer -32601",
        "client-resource-subscription-methods-deprecated-sep-2575",
    )
    TRIGGERS = ("subscribe_resource",)
    METHODS = frozenset(
        {
            "subscribe_resource",
            "unsubscribe_resource",
        }
    )
    RECEIVERS = SESSION_CLASS
    MESSAGE = "resource subscriptions are deprecated (SEP-2575): 2026-07-28 servers answer -32601"

"""MCP232 change-notifications-2026: list-changed/updated notifications are dropped on 2026-07-28
connections."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS, SESSION_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP232",
        "change-notifications-2026",
        Kind.ADVISORY,
        Safety.REPORT,
        "`send_tool_list_changed()`/`send_resource_updated()` are dropped on 2026-07-28 connections",
        "change-notifications-travel-only-on-subscriptionslisten-streams",
    )
    TRIGGERS = ("send_",)
    METHODS = frozenset(
        {
            "send_prompt_list_changed",
            "send_resource_list_changed",
            "send_resource_updated",
            "send_tool_list_changed",
        }
    )
    RECEIVERS = CONTEXT_CLASS | SESSION_CLASS
    MESSAGE = "change notifications are dropped on 2026-07-28 connections (they travel on subscriptions/listen streams)"

"""MCP028 get-context-removed: ``mcp.get_context()`` is gone: take an injected ``ctx: Context`` parameter."""

from __future__ import annotations

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import CallDetector
from migrate.rules.sdk import SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP028",
        "get-context-removed",
        Kind.REQUIRED,
        Safety.REPORT,
        "`mcp.get_context()` -> injected `ctx: Context` parameter",
        "mcpserverget_context-removed",
    )
    TRIGGERS = ("get_context",)
    METHODS = frozenset({"get_context"})
    RECEIVERS = SERVER_CLASS
    MESSAGE = "get_context() was removed: add a `ctx: Context` parameter to the tool/resource/prompt and use it"

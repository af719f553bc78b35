"""MCP021 lowlevel-request-context: ``request_ctx.get()`` -> the handler's ``ctx`` argument
(``server.request_context`` is handled by MCP007's adapter)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP021",
        "lowlevel-request-context",
        Kind.REQUIRED,
        Safety.REPORT,
        "`server.request_context` / `request_ctx.get()` -> the handler's `ctx` argument",
        "lowlevel-server-request_context-property-removed",
    )
    TRIGGERS = ("request_ctx",)
    CALLEES = frozenset({"mcp.server.lowlevel.request_ctx.get", "mcp.server.lowlevel.server.request_ctx.get"})
    MESSAGE = "request_ctx is gone: use the ctx your v2 handler receives (or _mcp_v1_request_context() inside adapted handlers)"

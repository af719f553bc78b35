"""MCP221 jsonrpc-error-null-id: ``JSONRPCError.id`` may be ``None``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP221",
        "jsonrpc-error-null-id",
        Kind.ADVISORY,
        Safety.REPORT,
        "`JSONRPCError.id` may be `None`",
        "jsonrpcerrorid-is-now-requestid-none",
    )
    TRIGGERS = ("JSONRPCError",)
    NAMES = frozenset(
        {
            "mcp.types.JSONRPCError",
        }
    )
    MESSAGE = "JSONRPCError.id may be None in v2: handle a missing id"

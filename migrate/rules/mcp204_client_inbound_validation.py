"""MCP204 client-inbound-validation: ``ClientSession`` validates server traffic against the negotiated
schema; off-spec servers now raise."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP204",
        "client-inbound-validation",
        Kind.ADVISORY,
        Safety.REPORT,
        "`ClientSession` validates server traffic against the negotiated schema",
        "client-validates-inbound-traffic-against-the-protocol-schema",
    )
    TRIGGERS = ("ClientSession(",)
    CALLEES = frozenset(
        {
            "mcp.ClientSession",
            "mcp.client.session.ClientSession",
        }
    )
    MESSAGE = "ClientSession now validates server messages against the schema: off-spec servers raise ValidationError"

"""MCP211 as-invalid-client: SDK-hosted authorization servers answer ``invalid_client`` (was
``unauthorized_client``)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP211",
        "as-invalid-client",
        Kind.ADVISORY,
        Safety.REPORT,
        "SDK-hosted authorization servers answer `invalid_client` (was `unauthorized_client`)",
        "stricter-client-authentication-at-token-and-revoke",
    )
    TRIGGERS = ("auth_server_provider",)
    CALLEES = SERVER_CLASS
    KEYWORDS = frozenset(
        {
            "auth_server_provider",
        }
    )
    MESSAGE = (
        "the SDK-hosted authorization server answers invalid_client where v1 said unauthorized_client; AuthSettings issuer keeps its path"
    )

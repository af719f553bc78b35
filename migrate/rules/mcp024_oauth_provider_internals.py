"""MCP024 oauth-provider-internals: subclasses of ``OAuthClientProvider`` overriding internals typed with
httpx need a hand port."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import SubclassDetector


class Rule(SubclassDetector):
    META = RuleMeta(
        "MCP024",
        "oauth-provider-internals",
        Kind.REQUIRED,
        Safety.REPORT,
        "Subclasses of `OAuthClientProvider` overriding internals (`async_auth_flow`, `_register_client`, ...)",
        "httpx-and-httpx-sse-replaced-by-httpx2",
    )
    TRIGGERS = ("OAuthClientProvider",)
    BASES = frozenset({"mcp.client.auth.OAuthClientProvider", "mcp.client.auth.oauth2.OAuthClientProvider"})
    OVERRIDES = frozenset(
        {
            "_exchange_token",
            "_handle_oauth_metadata_response",
            "_handle_token_response",
            "_perform_authorization",
            "_refresh_token",
            "_register_client",
            "async_auth_flow",
        }
    )
    MESSAGE = "OAuthClientProvider internals are typed with httpx2 now: port this override by hand"

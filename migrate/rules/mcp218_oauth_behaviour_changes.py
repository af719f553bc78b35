"""MCP218 oauth-behaviour-changes: OAuth client behaviour changed (issuer string match, offline_access,
bound credentials, native application type)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP218",
        "oauth-behaviour-changes",
        Kind.ADVISORY,
        Safety.REPORT,
        "OAuth client behaviour: issuer must string-match, `offline_access`+`prompt=consent` added, credentials bound to issuer",
        "client-rejects-authorization-server-metadata-with-a-mismatched-issuer",
    )
    TRIGGERS = ("OAuthClientProvider(",)
    CALLEES = frozenset(
        {
            "mcp.client.auth.OAuthClientProvider",
            "mcp.client.auth.oauth2.OAuthClientProvider",
        }
    )
    MESSAGE = "OAuth client behaviour changed: issuer string-match, offline_access + prompt=consent, credentials bound to the issuer"

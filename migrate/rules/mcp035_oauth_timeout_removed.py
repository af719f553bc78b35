"""MCP035 oauth-timeout-removed: drop ``timeout=`` from ``OAuthClientProvider(...)`` (v1 never read it)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import KeywordEdit


class Rule(KeywordEdit):
    META = RuleMeta(
        "MCP035", "oauth-timeout-removed", Kind.REQUIRED, Safety.SAFE,
        'Drop `timeout=` from `OAuthClientProvider(...)` (it was never read)',
        'timeout-parameter-removed-from-oauthclientprovider',
    )
    TRIGGERS = ("OAuthClientProvider",)
    CALLEES = frozenset({"mcp.client.auth.OAuthClientProvider", "mcp.client.auth.oauth2.OAuthClientProvider"})
    DROP_KW = frozenset({"timeout"})
    MESSAGE = "`timeout=` dropped: OAuthClientProvider never read it"

"""MCP076 client-credentials-scope-kw: ``scopes=`` -> ``scope=`` on the client-credentials OAuth providers."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import KeywordEdit


class Rule(KeywordEdit):
    META = RuleMeta(
        "MCP076", "client-credentials-scope-kw", Kind.REQUIRED, Safety.SAFE,
        '`ClientCredentialsOAuthProvider(scopes=...)`/`PrivateKeyJWTOAuthProvider(scopes=...)` -> `scope=`',
        '',
    )
    TRIGGERS = ("scopes=",)
    CALLEES = frozenset(
        f"mcp.client.auth.extensions.client_credentials.{name}"
        for name in ("ClientCredentialsOAuthProvider", "PrivateKeyJWTOAuthProvider")
    )
    RENAME_KW = {"scopes": "scope"}
    MESSAGE = "`scopes=` -> `scope=`"

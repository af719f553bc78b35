"""MCP075 rfc7523-removed: RFC 7523 OAuth helpers were removed."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector


class Rule(Detector):
    META = RuleMeta(
        "MCP075",
        "rfc7523-removed",
        Kind.REQUIRED,
        Safety.REPORT,
        "`RFC7523OAuthClientProvider`/`JWTParameters` removed",
        "rfc7523oauthclientprovider-and-jwtparameters-removed",
    )
    TRIGGERS = ("JWTParameters", "RFC7523OAuthClientProvider")
    NAMES = frozenset(
        [
            "mcp.client.auth.extensions.client_credentials.JWTParameters",
            "mcp.client.auth.extensions.client_credentials.RFC7523OAuthClientProvider",
        ]
    )
    MESSAGE = "RFC7523OAuthClientProvider/JWTParameters were removed: use PrivateKeyJWTOAuthProvider"

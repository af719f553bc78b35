"""MCP075 rfc7523-removed: `RFC7523OAuthClientProvider`/`JWTParameters` removed."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP075", "from mcp.client.auth.extensions.client_credentials import JWTParameters\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.client.auth import OAuthClientProvider\n",
]


class TestMCP075(RuleTests):
    rule = "MCP075"
    cases = CASES
    negative = NEGATIVE

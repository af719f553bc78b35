"""MCP024 oauth-provider-internals: Subclasses of `OAuthClientProvider` overriding internals
(`async_auth_flow`, `_register_client`, ...)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP024", "from mcp.client.auth import OAuthClientProvider\nclass P(OAuthClientProvider):\n"
                   "    async def async_auth_flow(self, request): ...\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.client.auth import OAuthClientProvider\nclass P(OAuthClientProvider):\n    def mine(self): ...\n",
]


class TestMCP024(RuleTests):
    rule = "MCP024"
    cases = CASES
    negative = NEGATIVE

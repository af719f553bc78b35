"""MCP035 oauth-timeout-removed: Drop `timeout=` from `OAuthClientProvider(...)` (it was never read)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP035", """
        from mcp.client.auth import OAuthClientProvider
        p = OAuthClientProvider(server_url=u, client_metadata=m, storage=s, timeout=300.0)
        """, """
        from mcp.client.auth import OAuthClientProvider
        p = OAuthClientProvider(server_url=u, client_metadata=m, storage=s)
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from myauth import OAuthClientProvider\np = OAuthClientProvider(timeout=3)\n",
]


class TestMCP035(RuleTests):
    rule = "MCP035"
    cases = CASES
    negative = NEGATIVE

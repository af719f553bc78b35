"""MCP218 oauth-behaviour-changes: OAuth client behaviour: issuer must string-match,
`offline_access`+`prompt=consent` added, credentials bound to issuer."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP218", "from mcp.client.auth import OAuthClientProvider\np = OAuthClientProvider(server_url=u)\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mylib import OAuthClientProvider\nOAuthClientProvider()\n",
]


class TestMCP218(RuleTests):
    rule = "MCP218"
    cases = CASES
    negative = NEGATIVE

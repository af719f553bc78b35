"""MCP077 oauth-client-info-types: `OAuthClientInformationFull` is no longer an `OAuthClientMetadata`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP077", "from mcp.shared.auth import OAuthClientMetadata\nok = isinstance(info, OAuthClientMetadata)\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.shared.auth import OAuthClientMetadata\nm = OAuthClientMetadata(redirect_uris=[])\n",
]


class TestMCP077(RuleTests):
    rule = "MCP077"
    cases = CASES
    negative = NEGATIVE

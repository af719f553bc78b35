"""MCP078 as-client-secret-records: Hand-provisioned AS client records with a secret-based auth method but no secret are rejected."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP078", "from mcp.shared.auth import OAuthClientInformationFull\n"
                   "c = OAuthClientInformationFull(client_id='c', client_secret=None,\n"
                   "                               token_endpoint_auth_method='client_secret_post', redirect_uris=['http://x'])\n",
         None, {"manual"}, 1),
    Case("MCP078", "from mcp.shared.auth import OAuthClientInformationFull\n"
                   "c = OAuthClientInformationFull(client_id='c', redirect_uris=['http://x'])\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.shared.auth import OAuthClientInformationFull\n"
    "c = OAuthClientInformationFull(client_id='c', token_endpoint_auth_method='none', redirect_uris=['http://x'])\n",
    "from mcp.shared.auth import OAuthClientInformationFull\n"
    "c = OAuthClientInformationFull(client_id='c', client_secret='s', redirect_uris=['http://x'])\n",
    "from mylib import OAuthClientInformationFull\nOAuthClientInformationFull(client_id='c')\n",
]


class TestMCP078(RuleTests):
    rule = "MCP078"
    cases = CASES
    negative = NEGATIVE

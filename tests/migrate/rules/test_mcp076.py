"""MCP076 client-credentials-scope-kw: `ClientCredentialsOAuthProvider(scopes=...)`/`PrivateKeyJWTOAuthProvider(scopes=...)` -> `scope=`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP076", """
        from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
        p = ClientCredentialsOAuthProvider(server_url=u, storage=s, client_id=i, client_secret=c, scopes="read")
        """, """
        from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
        p = ClientCredentialsOAuthProvider(server_url=u, storage=s, client_id=i, client_secret=c, scope="read")
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "import mcp.types\nfrom mylib import Provider\nProvider(scopes='x')\n",
]


class TestMCP076(RuleTests):
    rule = "MCP076"
    cases = CASES
    negative = NEGATIVE

"""MCP034 client-auth-incidental-imports: Names imported from `mcp.client.auth` that were only incidental
re-exports (`httpx`, `logger`, `urljoin`, ...)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP034", "from mcp.client.auth import OAuthClientProvider, logger\n", None, {"manual"}, 1),
    Case("MCP034", """
        # auth
        from mcp.client.auth import OAuthClientProvider, httpx, urljoin as join
        from mcp.client.auth.oauth2 import time
        """, """
        # auth
        from mcp.client.auth import OAuthClientProvider
        import httpx
        from urllib.parse import urljoin as join
        import time
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mcp.client.auth import OAuthClientProvider\nimport httpx\n",
]


class TestMCP034(RuleTests):
    rule = "MCP034"
    cases = CASES
    negative = NEGATIVE

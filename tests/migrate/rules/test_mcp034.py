"""MCP034 client-auth-incidental-imports: Names imported from `mcp.client.auth` that were only incidental
re-exports (`httpx`, `logger`, `urljoin`, ...)."""

from __future__ import annotations

from migrate_helpers import MARKER, Case, RuleTests, migrate_source

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


MIXED = """
import os
from mcp.client.auth import OAuthClientProvider, MCP_PROTOCOL_VERSION, httpx, urljoin
from mcp.client.auth.oauth2 import (
    MCP_PROTOCOL_VERSION as V,
    OAuthClientProvider as P,
    anyio,
    secrets,
)
"""


def test_one_run_moves_every_name_when_another_rule_splits_the_same_line() -> None:
    """MCP033 moves `MCP_PROTOCOL_VERSION` out of the same import line: MCP034 still moves the rest in
    the same run (issue 31: it used to move them one run later) and leaves no stale marker."""
    once, _ = migrate_source(MIXED)
    assert "import httpx\nfrom urllib.parse import urljoin\n" in once and "import anyio\nimport secrets\n" in once
    assert "from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER as V\n" in once
    assert MARKER not in once
    assert migrate_source(once)[0] == once

"""MCP015 httpx-objects-to-sdk: httpx objects handed to the SDK must be httpx2 (`http_client=`, `auth=`, `httpx_client_factory`)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests, assert_idempotent, dedent, migrate_source

CASES: list[Case] = [
    Case("MCP015", "from httpx import BasicAuth\nfrom mcp.client.sse import sse_client\nc = sse_client(url, auth=BasicAuth('u', 'p'))\n",
         None, {"manual"}, 1),
    Case("MCP015", """
        import httpx
        from mcp.client.auth import OAuthClientProvider
        from mcp.client.streamable_http import streamable_http_client
        a = streamable_http_client(u, http_client=httpx.AsyncClient(timeout=httpx.Timeout(5)))
        b = httpx.AsyncClient(auth=OAuthClientProvider(x), follow_redirects=True)
        """, """
        import httpx2
        from mcp.client.auth import OAuthClientProvider
        from mcp.client.streamable_http import streamable_http_client
        # TODO(mcp-migrate MCP015): httpx object -> the same httpx2 object (same API)
        a = streamable_http_client(u, http_client=httpx2.AsyncClient(timeout=httpx2.Timeout(5)))
        # TODO(mcp-migrate MCP015): httpx object -> the same httpx2 object (same API)
        b = httpx2.AsyncClient(auth=OAuthClientProvider(x), follow_redirects=True)
        """, {"review"}, 2),
]

NEGATIVE: list[str] = [
    "import httpx\nclient = httpx.AsyncClient(auth=('u', 'p'))\n",
]


class TestMCP015(RuleTests):
    rule = "MCP015"
    cases = CASES
    negative = NEGATIVE


SOURCE = """
import httpx
from mcp.client.sse import sse_client
c = sse_client(u, auth=httpx.BasicAuth("u", "p"))
"""


def test_inline_httpx_objects_become_httpx2() -> None:
    new, findings = migrate_source(SOURCE, "MCP015")
    assert 'sse_client(u, auth=httpx2.BasicAuth("u", "p"))' in new and "import httpx2\n" in new
    assert {f.status for f in findings} == {"review"}


def test_negative_and_idempotent() -> None:
    source = "import httpx\nc = httpx.AsyncClient(timeout=3)\n"
    assert migrate_source(source, "MCP015") == (dedent(source), [])
    assert_idempotent(SOURCE, "MCP015")


def test_a_client_built_before_the_call() -> None:
    source = """
    import httpx
    from mcp.client.streamable_http import streamable_http_client
    client = httpx.AsyncClient(timeout=3)
    s = streamable_http_client(u, http_client=client)
    """
    assert "client = httpx2.AsyncClient(timeout=3)" in migrate_source(source, "MCP015")[0]

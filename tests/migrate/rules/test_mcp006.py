"""MCP006 streamablehttp-client-removed: `streamablehttp_client(...)` -> `streamable_http_client(url,
http_client=httpx2.AsyncClient(...))`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP006", """
        from mcp.client.streamable_http import streamablehttp_client
        async def go(url: str) -> None:
            async with streamablehttp_client(url) as streams:
                pass
        """, """
        from mcp.client.streamable_http import streamable_http_client
        async def go(url: str) -> None:
            async with streamable_http_client(url) as streams:
                pass
        """, {"fixed"}),
    Case("MCP006", """
        from mcp.client.streamable_http import streamablehttp_client
        async def go(u: str, a: object) -> None:
            async with streamablehttp_client(u, headers=h, sse_read_timeout=6, auth=a) as s:
                pass
        """, """
        import httpx2
        from mcp.client.streamable_http import streamable_http_client
        async def go(u: str, a: object) -> None:
            # TODO(mcp-migrate MCP006): headers/timeouts/auth -> an httpx2.AsyncClient passed as http_client=
            async with httpx2.AsyncClient(headers=h, timeout=httpx2.Timeout(30, read=6), auth=a, follow_redirects=True) \
as http_client, streamable_http_client(u, http_client=http_client) as s:
                pass
        """, {"fixed", "review"}, 1),
    Case("MCP006", """
        from mcp.client.streamable_http import streamablehttp_client
        async def go(url: str) -> None:
            async with streamablehttp_client(url, httpx_client_factory=make, timeout=5) as streams:
                pass
        """, None, {"fixed", "manual"}, 1),
]

NEGATIVE: list[str] = [
    "def streamablehttp_client(url): ...\nstreamablehttp_client('x')\n",
]


class TestMCP006(RuleTests):
    rule = "MCP006"
    cases = CASES
    negative = NEGATIVE

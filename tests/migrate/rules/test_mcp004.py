"""MCP004 streamable-client-2tuple: `streamable_http_client` yields `(read, write)`, not `(read, write, get_session_id)`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP004", """
        from mcp.client.streamable_http import streamable_http_client
        async def go(url: str) -> None:
            async with streamable_http_client(url) as (read, write, _):
                pass
        """, """
        from mcp.client.streamable_http import streamable_http_client
        async def go(url: str) -> None:
            async with streamable_http_client(url) as (read, write):
                pass
        """, {"fixed"}),
    Case("MCP004", """
        from mcp.client.streamable_http import streamable_http_client
        async def go(url: str) -> None:
            async with streamable_http_client(url) as (read, write, get_session_id):
                print(get_session_id())
        """, None, {"manual"}, 1),
    # bound to one name: the unpacking happens further down, so the site is reported, not edited
    Case("MCP004", """
        from mcp.client.streamable_http import streamable_http_client
        async def f():
            async with streamable_http_client('u') as streams:
                r, w, _ = streams
        """, """
        from mcp.client.streamable_http import streamable_http_client
        async def f():
            # TODO(mcp-migrate MCP004): yields (read, write) in v2: check where `streams` is unpacked
            async with streamable_http_client('u') as streams:
                r, w, _ = streams
        """, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from myhttp import streamable_http_client\nasync def f():\n"
    "    async with streamable_http_client(u) as (a, b, c):\n        pass\n",
]


class TestMCP004(RuleTests):
    rule = "MCP004"
    cases = CASES
    negative = NEGATIVE

"""MCP012 requestcontext-split: `RequestContext[...]` -> `ClientRequestContext` / `ServerRequestContext[L, R]`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP012", """
        from mcp import ClientSession
        from mcp.shared.context import RequestContext
        async def sampling(ctx: RequestContext[ClientSession, None], params: object) -> None: ...
        """, """
        from mcp import ClientSession
        from mcp.client.context import ClientRequestContext
        async def sampling(ctx: ClientRequestContext, params: object) -> None: ...
        """, {"fixed"}),
    Case("MCP012", """
        from typing import Any
        from mcp import ClientSession
        from mcp.shared.context import RequestContext
        async def sampling(context: RequestContext["ClientSession", Any], params) -> None: ...
        """, """
        from typing import Any
        from mcp import ClientSession
        from mcp.client.context import ClientRequestContext
        async def sampling(context: ClientRequestContext, params) -> None: ...
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mylib import RequestContext\nx: RequestContext[int, None]\n",
]


class TestMCP012(RuleTests):
    rule = "MCP012"
    cases = CASES
    negative = NEGATIVE

"""MCP018 context-generic-params: `Context[ServerSession, L(, R)]` -> `Context[L(, R)]` (bare `Context` when L is None/Any)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests, migrate_source

CASES: list[Case] = [
    Case("MCP018", """
        from typing import Any
        from mcp.server.fastmcp import Context
        from mcp.server.session import ServerSession
        async def a(ctx: Context[ServerSession, None]) -> None: ...
        async def b(ctx: Context[ServerSession, AppContext]) -> None: ...
        async def c(ctx: Context[ServerSession, Any, Request]) -> None: ...
        """, """
        from typing import Any
        from mcp.server.fastmcp import Context
        async def a(ctx: Context) -> None: ...
        async def b(ctx: Context[AppContext]) -> None: ...
        async def c(ctx: Context[Any, Request]) -> None: ...
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mylib import Context, ServerSession\nx: Context[ServerSession, None]\n",
]


class TestMCP018(RuleTests):
    rule = "MCP018"
    cases = CASES
    negative = NEGATIVE


def test_mcp018_drops_the_session_import_it_made_unused_and_keeps_a_used_one() -> None:
    source = ("from mcp.server.fastmcp import Context\nfrom mcp.server.session import ServerSession\n\n"
              "async def a(ctx: Context[ServerSession, None]) -> None: ...\n")
    new, _ = migrate_source(source, "MCP018")
    assert "ServerSession" not in new
    kept, _ = migrate_source(source + "s: ServerSession\n", "MCP018")
    assert "from mcp.server.session import ServerSession" in kept

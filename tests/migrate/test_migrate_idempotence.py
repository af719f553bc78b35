"""Idempotence on real code: with every default rule on, a second run changes nothing and finds
nothing that the first run's own output created (issue: run 1 writing `MCPError` or `Client(...)`
must not make run 2 fire MCP071 or MCP208; the single-rule halves are in rules/test_mcp071.py and
test_mcp208.py). Each rule's own cases run this check in its module (``RuleTests``); here the
cross-rule ones."""

from __future__ import annotations

import pytest
from migrate_helpers import Case, check_idempotent_with_every_rule
from test_migrate_robustness import EVERY_STATEMENT

EXTRA = [
    Case("MCP071", """
        import httpx
        from mcp.shared.exceptions import McpError
        from mcp.types import ErrorData
        def f():
            try:
                raise McpError(ErrorData(code=1, message="x"))
            except httpx.HTTPStatusError:
                pass
        """, None, set()),
    Case("MCP208", """
        from mcp.shared.memory import create_connected_server_and_client_session
        async def t(server, cb):
            async with create_connected_server_and_client_session(server, logging_callback=cb) as session:
                await session.list_tools()
        """, None, set()),
    Case("ALL", EVERY_STATEMENT, None, set()),
    # seen on the SDK's own v1.29.0 tests: MCP028 turns these receivers into a `ctx: Context` parameter,
    # so the Context rules must see `server.get_context()` in the first run already
    Case("MCP028", """
        from mcp.server.fastmcp import FastMCP
        server = FastMCP("t")
        @server.tool("log")
        async def log(message: str) -> bool:
            await server.get_context().log(level="info", message=message)
            value = await server.get_context().session.create_message(messages=[], max_tokens=1)
            return bool(value)
        """, None, set()),
]


@pytest.mark.parametrize("case", EXTRA, ids=[f"{c.rule}-{i}" for i, c in enumerate(EXTRA)])
def test_second_run_with_every_rule_changes_and_finds_nothing_new(case: Case) -> None:
    check_idempotent_with_every_rule(case)

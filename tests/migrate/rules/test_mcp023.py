"""MCP023 memory-helper-removed: `create_connected_server_and_client_session(server)` -> `Client(server, mode="legacy")`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP023", """
        from mcp.shared.memory import create_connected_server_and_client_session
        async def t(server):
            async with create_connected_server_and_client_session(server) as client:
                await client.list_tools()
        """, """
        from mcp import Client
        async def t(server):
            # TODO(mcp-migrate MCP023): now an `mcp.Client` in legacy mode: results are v2 models (snake_case attributes)
            async with Client(server, mode="legacy") as client:
                await client.list_tools()
        """, {"fixed", "review"}, 1),
    # a reference that is not a call (mcp-proxy 0.11.0's tests): renaming the import would unbind it
    Case("MCP023", """
        from mcp.shared.memory import create_connected_server_and_client_session
        in_memory = create_connected_server_and_client_session
        async def go(server):
            async with create_connected_server_and_client_session(server) as s:
                return s
        """, None, {"manual"}, 3),
]

NEGATIVE: list[str] = [
    "from mytests import create_connected_server_and_client_session as c\nc(1)\n",
]


class TestMCP023(RuleTests):
    rule = "MCP023"
    cases = CASES
    negative = NEGATIVE

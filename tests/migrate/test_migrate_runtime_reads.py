"""Issue 31: camelCase reads on SDK results that raise (or silently default) under mcp 2.x, in the
shapes real clients write them -- through a loop or comprehension variable, a session kept on
``self`` (the SDK's client quickstart), ``getattr``/``hasattr`` with a constant name, and a
subscript of a list from the server's own handler. Renamed where the type is provable; marked
(never silent) where it is not."""

from __future__ import annotations

from migrate_helpers import MARKER, assert_idempotent, migrate_source

QUICKSTART = """
from contextlib import AsyncExitStack
from typing import Optional

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


class Client:
    def __init__(self) -> None:
        self.session: Optional[ClientSession] = None
        self.exit_stack = AsyncExitStack()

    async def connect(self, params: StdioServerParameters) -> None:
        read, write = await self.exit_stack.enter_async_context(stdio_client(params))
        self.session = await self.exit_stack.enter_async_context(ClientSession(read, write))
        await self.session.initialize()

    async def tools(self) -> list[dict]:
        response = await self.session.list_tools()
        return [{"name": tool.name, "input_schema": tool.inputSchema} for tool in response.tools]
"""


def test_a_comprehension_over_a_listed_result_is_renamed() -> None:
    new, findings = migrate_source("""
        from mcp import ClientSession
        async def go(session: ClientSession) -> None:
            schemas = [t.inputSchema for t in (await session.list_tools()).tools]
            by_name = {t.name: t.outputSchema for t in (await session.list_tools()).tools}
            first = next(t.inputSchema for t in (await session.list_tools()).tools)
        """, "MCP005")
    assert "[t.input_schema for t in" in new and "{t.name: t.output_schema for t in" in new
    assert "next(t.input_schema for t in" in new
    assert MARKER not in new and {f.status for f in findings} == {"fixed"}


def test_the_quickstart_client_keeps_its_session_on_self() -> None:
    new, findings = migrate_source(QUICKSTART, "MCP005")
    assert '"input_schema": tool.input_schema} for tool in response.tools]' in new
    assert MARKER not in new and [f.status for f in findings] == ["fixed"]
    assert_idempotent(QUICKSTART, "MCP005")


def test_a_loop_over_a_list_bound_from_a_result() -> None:
    new, _ = migrate_source("""
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client
        async def go(params) -> None:
            async with stdio_client(params) as (r, w):
                async with ClientSession(r, w) as session:
                    response = await session.list_tools()
                    tools = response.tools
                    for tool in tools:
                        print(tool.inputSchema)
                    print([{"schema": t.inputSchema} for t in tools])
        """, "MCP005")
    assert "print(tool.input_schema)" in new and '[{"schema": t.input_schema} for t in tools]' in new
    assert MARKER not in new


def test_getattr_and_hasattr_on_a_loop_variable_are_renamed() -> None:
    new, _ = migrate_source("""
        from mcp import ClientSession
        async def go(session: ClientSession) -> None:
            for tool in (await session.list_tools()).tools:
                print(getattr(tool, "inputSchema", None), hasattr(tool, 'outputSchema'))
        """, "MCP005")
    assert 'getattr(tool, "input_schema", None), hasattr(tool, \'output_schema\')' in new


def test_getattr_on_an_unproven_receiver_is_marked_not_silent() -> None:
    source = """
        import mcp.types
        def schema_of(tool):
            return getattr(tool, "inputSchema", None)
        """
    new, findings = migrate_source(source, "MCP005")
    assert new.count(MARKER) == 1 and "pass 'input_schema' to `getattr`" in new
    assert 'getattr(tool, "inputSchema", None)' in new and [f.status for f in findings] == ["manual"]
    assert_idempotent(source, "MCP005")


def test_a_subscript_of_the_servers_own_handler_result() -> None:
    new, _ = migrate_source("""
        import mcp.types as types
        async def list_tools() -> list[types.Tool]:
            return [types.Tool(name="a", inputSchema={"type": "object"})]
        async def check() -> None:
            tools = await list_tools()
            assert tools[0].inputSchema["type"] == "object"
        """, "MCP005")
    assert 'tools[0].input_schema["type"]' in new


def test_a_server_listing_its_own_tools() -> None:
    new, _ = migrate_source("""
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP("x")
        async def main() -> None:
            tools = await mcp.list_tools()
            print(tools[0].inputSchema, [t.inputSchema for t in tools])
        """, "MCP005")
    assert "print(tools[0].input_schema, [t.input_schema for t in tools])" in new


def test_a_comprehension_target_does_not_leak_out_of_it() -> None:
    new, _ = migrate_source("""
        from mcp import ClientSession
        async def go(session: ClientSession, t) -> None:
            names = [t.name for t in (await session.list_tools()).tools]
            return t.inputSchema
        """, "MCP005")
    assert "    return t.inputSchema" in new and new.count(MARKER) == 1  # unproven outside it: marked only

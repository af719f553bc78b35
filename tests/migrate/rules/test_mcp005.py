"""MCP005 camel-attrs: camelCase attribute reads on MCP types -> snake_case (`result.isError` -> `result.is_error`)."""

from __future__ import annotations

import pytest
from migrate_helpers import Case, RuleTests, assert_idempotent, dedent, migrate_source

CASES: list[Case] = [
    Case("MCP005", """
        from mcp import ClientSession
        async def go(session: ClientSession) -> None:
            result = await session.call_tool("t", {})
            if result.isError:
                print(result.structuredContent)
            for tool in (await session.list_tools()).tools:
                print(tool.inputSchema)
        """, """
        from mcp import ClientSession
        async def go(session: ClientSession) -> None:
            result = await session.call_tool("t", {})
            if result.is_error:
                print(result.structured_content)
            for tool in (await session.list_tools()).tools:
                print(tool.input_schema)
        """, {"fixed"}),
    Case("MCP005", """
        import mcp.types as types
        def show(item: object) -> None:
            print(item.mimeType)
        """, None, {"manual"}, 1),
    Case("MCP005", """
        from mcp import ClientSession
        async def go(session: ClientSession) -> None:
            result = await session.call_tool("t", {})
            if hasattr(result, 'structuredContent') and getattr(result, "isError", False):
                pass
        """, """
        from mcp import ClientSession
        async def go(session: ClientSession) -> None:
            result = await session.call_tool("t", {})
            if hasattr(result, 'structured_content') and getattr(result, "is_error", False):
                pass
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "import json\ntool = json.loads('{}')\nprint(tool['inputSchema'])\nclass M:\n    isError: bool\nM().isError\n",
    "import mcp.types\ndef hasattr(o, n): ...\ndef f(x: mcp.types.Tool, d: dict):\n"
    "    hasattr(x, 'inputSchema')\n    getattr(d, 'inputSchema')\n",
]


class TestMCP005(RuleTests):
    rule = "MCP005"
    cases = CASES
    negative = NEGATIVE


SOURCE = """
from mcp import ClientSession
async def go(session: ClientSession) -> None:
    result = await session.call_tool("t", {})
    print(result.isError, hasattr(result, "structuredContent"))
    listed = await session.list_tools()
    for tool in listed.tools:
        print(tool.inputSchema)
"""


def test_reads_on_provable_results_are_renamed() -> None:
    new, _ = migrate_source(SOURCE, "MCP005")
    assert "result.is_error" in new and 'hasattr(result, "structured_content")' in new and "tool.input_schema" in new


def test_negative_and_idempotent() -> None:
    source = "class R:\n    isError = False\ndef f(r: R, d: dict):\n    return r.isError, d['isError']\n"
    assert migrate_source(source, "MCP005") == (dedent(source), [])
    assert_idempotent(SOURCE, "MCP005")


@pytest.mark.xfail(strict=True, reason="known gap: provenance is per function; a result returned by a helper "
                                       "is not known to be an MCP model")
def test_results_through_a_helper_function() -> None:
    source = """
    from mcp import ClientSession
    async def call(session: ClientSession):
        return await session.call_tool("t", {})
    async def go(session: ClientSession) -> bool:
        result = await call(session)
        return result.isError
    """
    assert "result.is_error" in migrate_source(source, "MCP005")[0]

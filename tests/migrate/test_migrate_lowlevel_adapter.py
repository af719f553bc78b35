"""Behaviour of the generated v1 adapter (MCP007, covering MCP008/MCP009/MCP010) under mcp 2.3.0.

A v1 lowlevel server is migrated, executed in this (v2) interpreter and driven by ``mcp.Client``:
bare-list results are wrapped (MCP008), arguments are validated against the listed schema
(MCP009), exceptions become ``is_error`` results (MCP010), dict results become structured content,
and a v1 handler still works when called directly (guard G8).
"""

from __future__ import annotations

import anyio
import pytest
from migrate_helpers import migrate_source

V1_SERVER = '''
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from pydantic import AnyUrl

app = Server("adapted")


@app.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(name="add", description="add", inputSchema={"type": "object", "required": ["a", "b"],
                   "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}),
        types.Tool(name="boom", description="fails", inputSchema={"type": "object"}),
        types.Tool(name="stats", description="dict", inputSchema={"type": "object"}),
    ]


@app.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent] | dict:
    if name == "boom":
        raise RuntimeError("exploded")
    if name == "stats":
        return {"count": 2}
    return [types.TextContent(type="text", text=str(arguments["a"] + arguments["b"]))]


@app.list_resources()
async def list_resources() -> list[types.Resource]:
    return [types.Resource(uri=AnyUrl("file:///a.txt"), name="a")]


@app.read_resource()
async def read_resource(uri: AnyUrl) -> list[ReadResourceContents]:
    return [ReadResourceContents(content=f"read {uri.path}", mime_type="text/plain")]
'''


@pytest.fixture(scope="module")
def namespace() -> dict[str, object]:
    code, findings = migrate_source(V1_SERVER)
    assert "@app." not in code
    assert "_mcp_v1_register(app, \"call_tool\", call_tool)" in code
    compiled = compile(code, "adapted_server.py", "exec")
    scope: dict[str, object] = {"__name__": "adapted_server"}
    exec(compiled, scope)  # noqa: S102 - the migrated module under test
    return scope


def run(coro_fn: object) -> object:
    return anyio.run(coro_fn)  # type: ignore[arg-type]


def test_lists_are_wrapped_mcp008(namespace: dict[str, object]) -> None:
    from mcp import Client

    async def go() -> tuple[list[str], list[str]]:
        async with Client(namespace["app"]) as client:
            tools = await client.list_tools()
            resources = await client.list_resources()
            return [t.name for t in tools.tools], [str(r.uri) for r in resources.resources]

    tools, resources = run(go)  # type: ignore[misc]
    assert tools == ["add", "boom", "stats"]
    assert resources == ["file:///a.txt"]


def test_call_results_validation_and_errors_mcp009_mcp010(namespace: dict[str, object]) -> None:
    from mcp import Client

    async def go() -> list[object]:
        async with Client(namespace["app"]) as client:
            ok = await client.call_tool("add", {"a": 1, "b": 2})
            invalid = await client.call_tool("add", {"a": "x"})
            boom = await client.call_tool("boom", {})
            stats = await client.call_tool("stats", {})
            read = await client.read_resource("file:///a.txt")
            return [ok, invalid, boom, stats, read]

    ok, invalid, boom, stats, read = run(go)  # type: ignore[misc]
    assert not ok.is_error and ok.content[0].text == "3"
    assert invalid.is_error and invalid.content[0].text.startswith("Input validation error")
    assert boom.is_error and boom.content[0].text == "exploded"
    assert stats.structured_content == {"count": 2} and '"count": 2' in stats.content[0].text
    assert read.contents[0].text == "read /a.txt"


def test_v1_handlers_still_callable_directly_g8(namespace: dict[str, object]) -> None:
    call_tool = namespace["call_tool"]

    async def go() -> object:
        return await call_tool("add", {"a": 2, "b": 2})  # type: ignore[operator]

    result = run(go)
    assert result[0].text == "4"  # type: ignore[index]


def test_semantic_rules_report_the_adapter_as_the_fix() -> None:
    _, findings = migrate_source(V1_SERVER, "MCP007", "MCP008", "MCP009", "MCP010")
    statuses = {(f.rule, f.status) for f in findings if f.rule in ("MCP008", "MCP009", "MCP010")}
    assert statuses == {("MCP008", "fixed"), ("MCP009", "fixed"), ("MCP010", "fixed")}

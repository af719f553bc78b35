"""MCP029 mcpserver-call-tool-result: Direct `mcp.call_tool(...)` now returns `CallToolResult`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP029", "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\nasync def test() -> None:\n"
                   "    assert await mcp.call_tool('t', {}) == 3\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp import ClientSession\nasync def f(s: ClientSession) -> None:\n    await s.call_tool('t', {})\n",
]


class TestMCP029(RuleTests):
    rule = "MCP029"
    cases = CASES
    negative = NEGATIVE

"""MCP223 mcperror-in-tool: `raise McpError(...)` inside `@mcp.tool()` becomes a JSON-RPC error (v1: isError result)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP223", "from mcp import McpError\nfrom mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n@mcp.tool()\n"
                   "async def t() -> str:\n    raise McpError(err)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp import McpError\ndef helper() -> None:\n    raise McpError(err)\n",
]


class TestMCP223(RuleTests):
    rule = "MCP223"
    cases = CASES
    negative = NEGATIVE

"""MCP203 sync-handlers-worker-thread: `def` tools/resources/prompts run in a worker thread (concurrency,
thread affinity, no running loop)."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP203", SERVER + "@mcp.tool()\ndef add(a: int) -> int:\n    return a\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', version='1')\n@mcp.tool()\nasync def a() -> int:\n"
    "    return 1\n",
]


class TestMCP203(RuleTests):
    rule = "MCP203"
    cases = CASES
    negative = NEGATIVE

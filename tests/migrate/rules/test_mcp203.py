"""MCP203 sync-handlers-worker-thread: `def` tools/resources/prompts run in a worker thread (concurrency,
thread affinity, no running loop)."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    # a module's own plain `def` registered with add_tool()
    Case("MCP203", SERVER + "def add(a: int) -> int:\n    return a\nmcp.add_tool(add)\n", None, {"manual"}, 1),
    Case("MCP203", SERVER + "@mcp.tool()\ndef add(a: int) -> int:\n    return a\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    # an async def, an imported function, or add_tool on something that is no server
    SERVER + "async def add(a: int) -> int:\n    return a\nmcp.add_tool(add)\n",
    SERVER + "from tools import add\nmcp.add_tool(add)\n",
    "import mcp.types\ndef add(a: int) -> int:\n    return a\nregistry.add_tool(add)\n",
    "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', version='1')\n@mcp.tool()\nasync def a() -> int:\n"
    "    return 1\n",
]


class TestMCP203(RuleTests):
    rule = "MCP203"
    cases = CASES
    negative = NEGATIVE


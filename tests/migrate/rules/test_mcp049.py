"""MCP049 resource-lookup-exceptions: `ResourceManager.get_resource()` / template creation raise
`ResourceNotFoundError`/`ResourceError`, not `ValueError`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP049", "from mcp.server.fastmcp.resources import ResourceManager\nasync def f(m: ResourceManager) -> None:\n"
                   "    await m.get_resource('x://y')\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(cache):\n    cache.get_resource('x')\n",
]


class TestMCP049(RuleTests):
    rule = "MCP049"
    cases = CASES
    negative = NEGATIVE

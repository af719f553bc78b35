"""MCP047 input-required-union: Direct `get_prompt()`/`read_resource()` callers must narrow out `InputRequiredResult`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP047", "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\nasync def t() -> None:\n"
                   "    await mcp.read_resource('x://y')\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp import ClientSession\nasync def f(s: ClientSession) -> None:\n    await s.read_resource('x')\n",
]


class TestMCP047(RuleTests):
    rule = "MCP047"
    cases = CASES
    negative = NEGATIVE

"""MCP052 resource-template-syntax: Resource templates that now fail at decoration time (adjacent variables, duplicate names)."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP052", SERVER + "@mcp.resource('x://{a}{b}')\nasync def r(a: str, b: str) -> str:\n    return a\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    SERVER + "@mcp.resource('x://{a}/{b}')\nasync def r(a: str, b: str) -> str:\n    return a\n",
]


class TestMCP052(RuleTests):
    rule = "MCP052"
    cases = CASES
    negative = NEGATIVE

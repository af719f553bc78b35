"""MCP052 resource-template-syntax: Resource templates that now fail at decoration time (adjacent variables, duplicate names)."""

from __future__ import annotations

import pytest
from migrate_helpers import SERVER, Case, RuleTests, migrate_source

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


@pytest.mark.xfail(strict=True, reason="known gap: only a string literal in the decorator is read; a template "
                                       "held in a module constant is not")
def test_a_template_in_a_module_constant() -> None:
    source = SERVER + "URI = 'x://{a}{b}'\n@mcp.resource(URI)\nasync def r(a: str, b: str) -> str:\n    return a\n"
    assert [f.status for f in migrate_source(source, "MCP052")[1]] == ["manual"]

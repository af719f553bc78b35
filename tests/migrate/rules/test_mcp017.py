"""MCP017 model-dump-by-alias: `model_dump()` on MCP models emits snake_case keys -> add `by_alias=True`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests, migrate_source

CASES: list[Case] = [
    Case("MCP017", """
        import mcp.types as types
        def dump(result: types.CallToolResult) -> dict:
            return result.model_dump(exclude_none=True)
        """, """
        import mcp.types as types
        def dump(result: types.CallToolResult) -> dict:
            return result.model_dump(exclude_none=True, by_alias=True)
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from pydantic import BaseModel\nclass Mine(BaseModel):\n    x: int\nMine(x=1).model_dump()\n",
]


class TestMCP017(RuleTests):
    rule = "MCP017"
    cases = CASES
    negative = NEGATIVE


def test_models_in_a_comprehension() -> None:
    source = """
    import mcp.types as types
    def dump(tools: list[types.Tool]) -> list[dict]:
        return [t.model_dump() for t in tools]
    """
    assert "t.model_dump(by_alias=True)" in migrate_source(source, "MCP017")[0]

"""MCP037 removed-type-aliases: Removed `mcp.types` aliases (`Content`, `ResourceReference`) ->
`ContentBlock`, `ResourceTemplateReference`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP037", """
        from mcp.types import Content
        def f(items: list[Content]) -> None: ...
        """, """
        from mcp.types import ContentBlock
        def f(items: list[ContentBlock]) -> None: ...
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mytypes import Content\nx: Content\n",
]


class TestMCP037(RuleTests):
    rule = "MCP037"
    cases = CASES
    negative = NEGATIVE

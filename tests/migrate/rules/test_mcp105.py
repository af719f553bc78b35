"""MCP105 mcperror-attr-shortcuts: `e.error.code`/`e.error.message`/`e.error.data` -> `e.code`/`e.message`/`e.data`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP105", "from mcp import McpError\ntry:\n    pass\nexcept McpError as e:\n    print(e.error.code, e.error.message)\n",
         "from mcp import McpError\ntry:\n    pass\nexcept McpError as e:\n    print(e.code, e.message)\n", {"fixed"}),
]

NEGATIVE: list[str] = [
    "try:\n    pass\nexcept ValueError as e:\n    print(e.error.code)\n",
]


class TestMCP105(RuleTests):
    rule = "MCP105"
    cases = CASES
    negative = NEGATIVE

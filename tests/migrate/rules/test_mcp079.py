"""MCP079 tool-input-schema-type: `Tool(inputSchema={})` without `"type": "object"` -> add it."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP079", """
        import mcp.types as types
        t = types.Tool(name="t", inputSchema={})
        u = types.Tool(name="u", inputSchema={"properties": {}})
        """, """
        import mcp.types as types
        t = types.Tool(name="t", inputSchema={"type": "object"})
        u = types.Tool(name="u", inputSchema={"type": "object", "properties": {}})
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "import mcp.types as types\nt = types.Tool(name='t', inputSchema={'type': 'object'})\nd = dict(inputSchema={})\n",
]


class TestMCP079(RuleTests):
    rule = "MCP079"
    cases = CASES
    negative = NEGATIVE

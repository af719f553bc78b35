"""MCP066 session-group-args: `ClientSessionGroup.call_tool(name, args=...)` -> `arguments=`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP066", """
        from mcp import ClientSessionGroup
        async def go(group: ClientSessionGroup) -> None:
            await group.call_tool("t", args={"a": 1})
        """, """
        from mcp import ClientSessionGroup
        async def go(group: ClientSessionGroup) -> None:
            await group.call_tool("t", arguments={"a": 1})
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(pool):\n    pool.call_tool('t', args={})\n",
]


class TestMCP066(RuleTests):
    rule = "MCP066"
    cases = CASES
    negative = NEGATIVE

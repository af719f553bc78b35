"""MCP064 get-server-capabilities: `session.get_server_capabilities()` -> `session.server_capabilities`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP064", """
        from mcp import ClientSession
        async def go(session: ClientSession) -> None:
            caps = session.get_server_capabilities()
        """, """
        from mcp import ClientSession
        async def go(session: ClientSession) -> None:
            caps = session.server_capabilities
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(s):\n    s.get_server_capabilities()\n",
]


class TestMCP064(RuleTests):
    rule = "MCP064"
    cases = CASES
    negative = NEGATIVE

"""MCP057 lowlevel-kwonly-ctor: `Server("name", "1.0", ...)` positional args -> keywords."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP057", """
        from mcp.server.lowlevel import Server
        app = Server("name", "1.0", "Be nice")
        """, """
        from mcp.server.lowlevel import Server
        app = Server("name", version="1.0", instructions="Be nice")
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mcp.server.fastmcp import FastMCP\nm = FastMCP('n')\nfrom mylib import Server\nServer('a', 'b')\n",
]


class TestMCP057(RuleTests):
    rule = "MCP057"
    cases = CASES
    negative = NEGATIVE

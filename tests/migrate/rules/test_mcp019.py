"""MCP019 settings-mutation: `server.settings.<transport field> = v` -> pass it to run()/*_app()/run_*_async()."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP019", """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP("Demo")
        mcp.settings.port = 9000
        mcp.run(transport="sse")
        """, """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP("Demo")
        mcp.run(transport="sse", port=9000)
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "class S:\n    class settings: port = 1\ns = S()\ns.settings.port = 2\n",
]


class TestMCP019(RuleTests):
    rule = "MCP019"
    cases = CASES
    negative = NEGATIVE

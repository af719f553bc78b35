"""MCP211 as-invalid-client: SDK-hosted authorization servers answer `invalid_client` (was `unauthorized_client`)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP211", "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', auth_server_provider=p, version='1')\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', version='1')\n",
]


class TestMCP211(RuleTests):
    rule = "MCP211"
    cases = CASES
    negative = NEGATIVE

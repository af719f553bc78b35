"""MCP201 empty-server-version: Servers constructed without `version=` report `serverInfo.version == ""`."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP201", SERVER, None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', version='1.0')\n",
]


class TestMCP201(RuleTests):
    rule = "MCP201"
    cases = CASES
    negative = NEGATIVE

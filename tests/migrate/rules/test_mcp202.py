"""MCP202 body-limit-4mib: HTTP transports reject request bodies over 4 MiB with 413 by default."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP202", SERVER + "mcp.run(transport='streamable-http')\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', version='1')\nmcp.run()\n",
]


class TestMCP202(RuleTests):
    rule = "MCP202"
    cases = CASES
    negative = NEGATIVE

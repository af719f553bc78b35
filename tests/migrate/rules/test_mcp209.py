"""MCP209 stdio-client-shutdown: `stdio_client` no longer kills a gracefully-exited server's child processes on POSIX."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP209", "from mcp.client.stdio import stdio_client\nc = stdio_client(params)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "def stdio_client(p): ...\nstdio_client(1)\n",
]


class TestMCP209(RuleTests):
    rule = "MCP209"
    cases = CASES
    negative = NEGATIVE

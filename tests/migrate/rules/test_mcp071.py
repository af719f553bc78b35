"""MCP071 http-status-errors: `except* httpx.HTTPStatusError` around `streamable_http_client` is dead code; per-call `MCPError` instead."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP071", "import httpx\nfrom mcp.client.streamable_http import streamable_http_client\ntry:\n    pass\n"
                   "except httpx.HTTPStatusError:\n    pass\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    # run 1 wrote the MCPError import: alone it must not make run 2 fire (issue #14 item 3)
    "import httpx\nfrom mcp import MCPError\ntry:\n    pass\nexcept httpx.HTTPStatusError:\n    pass\n",
    "import httpx\ntry:\n    pass\nexcept httpx.HTTPStatusError:\n    pass\n",
]


class TestMCP071(RuleTests):
    rule = "MCP071"
    cases = CASES
    negative = NEGATIVE

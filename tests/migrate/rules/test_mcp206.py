"""MCP206 dns-rebinding-host-default: Mounted `streamable_http_app()`/`sse_app()` default `host="127.0.0.1"`
-> DNS-rebinding protection on."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP206", SERVER + "app = mcp.streamable_http_app()\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', version='1')\napp = mcp.streamable_http_app(host='h')\n",
]


class TestMCP206(RuleTests):
    rule = "MCP206"
    cases = CASES
    negative = NEGATIVE

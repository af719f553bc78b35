"""MCP074 websocket-removed: WebSocket transport removed (`mcp.client.websocket`, `mcp.server.websocket`)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP074", "from mcp.client.websocket import websocket_client\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import websockets\nfrom mcp import ClientSession\n",
]


class TestMCP074(RuleTests):
    rule = "MCP074"
    cases = CASES
    negative = NEGATIVE

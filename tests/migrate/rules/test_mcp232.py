"""MCP232 change-notifications-2026: `send_tool_list_changed()`/`send_resource_updated()` are dropped on 2026-07-28 connections."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP232", SERVER + "async def t(ctx: Context) -> None:\n    await ctx.session.send_tool_list_changed()\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(bus):\n    bus.send_tool_list_changed()\n",
]


class TestMCP232(RuleTests):
    rule = "MCP232"
    cases = CASES
    negative = NEGATIVE

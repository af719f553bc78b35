"""MCP207 nobackchannel: Server-initiated requests (`ctx.elicit`, `create_message`, `list_roots`) raise
`NoBackChannelError` on 2026 connections."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP207", SERVER + "async def t(ctx: Context) -> None:\n    await ctx.elicit('q', schema=M)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(form):\n    form.elicit('q')\n",
]


class TestMCP207(RuleTests):
    rule = "MCP207"
    cases = CASES
    negative = NEGATIVE

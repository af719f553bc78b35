"""MCP216 elicit-schema-gate: `ctx.elicit(schema=Model)` validates the rendered schema; mismatched accepts raise `ValueError`."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP216", SERVER + "async def t(ctx: Context) -> None:\n    await ctx.elicit('q', schema=M)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(form):\n    form.elicit(schema=1)\n",
]


class TestMCP216(RuleTests):
    rule = "MCP216"
    cases = CASES
    negative = NEGATIVE

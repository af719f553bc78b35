"""MCP210 deprecated-sampling: Sampling deprecated (SEP-2577): `ctx.session.create_message()`, `sampling_callback=`."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP210", SERVER + "async def t(ctx: Context) -> None:\n    await ctx.session.create_message(m, max_tokens=5)\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(llm):\n    llm.create_message('x')\n",
]


class TestMCP210(RuleTests):
    rule = "MCP210"
    cases = CASES
    negative = NEGATIVE

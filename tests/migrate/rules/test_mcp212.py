"""MCP212 deprecated-logging: Protocol logging deprecated (SEP-2577): `ctx.debug/info/warning/error/log`, `send_log_message`."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP212", SERVER + "async def t(ctx: Context) -> None:\n    await ctx.info('hi')\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import logging\nlogger = logging.getLogger()\nlogger.info('x')\n",
]


class TestMCP212(RuleTests):
    rule = "MCP212"
    cases = CASES
    negative = NEGATIVE

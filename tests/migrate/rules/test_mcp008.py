"""MCP008 lowlevel-return-wrapping: Lowlevel handlers must return full result models (bare lists, dicts, str/bytes no longer wrapped)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP008", "from mcp.server.lowlevel import Server\napp = Server('s')\n@app.list_tools()\n"
                   "async def tools() -> list:\n    return []\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.lowlevel import Server\napp = Server('s')\n@app.set_logging_level()\nasync def lvl(level) -> None: ...\n",
]


class TestMCP008(RuleTests):
    rule = "MCP008"
    cases = CASES
    negative = NEGATIVE

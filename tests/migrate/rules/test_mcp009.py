"""MCP009 lowlevel-jsonschema-validation: v1 `call_tool` validated arguments (and structured output) against
the listed tool schemas; v2 does not."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP009", "from mcp.server.lowlevel import Server\napp = Server('s')\n@app.call_tool()\n"
                   "async def call(name: str, arguments: dict) -> list:\n    return []\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.lowlevel import Server\napp = Server('s')\n@app.call_tool(validate_input=False)\n"
    "async def call(name: str, arguments: dict) -> list:\n    return []\n",
]


class TestMCP009(RuleTests):
    rule = "MCP009"
    cases = CASES
    negative = NEGATIVE

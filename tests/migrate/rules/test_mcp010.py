"""MCP010 lowlevel-tool-exceptions: Exceptions in lowlevel `call_tool` handlers become JSON-RPC errors instead of `isError` results."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP010", "from mcp.server.lowlevel import Server\napp = Server('s')\n@app.call_tool()\n"
                   "async def call(name: str, arguments: dict) -> list:\n    return []\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "class S:\n    def call_tool(self): return lambda f: f\napp = S()\n@app.call_tool()\nasync def f(): ...\n",
]


class TestMCP010(RuleTests):
    rule = "MCP010"
    cases = CASES
    negative = NEGATIVE

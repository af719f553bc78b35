"""MCP031 clientsession-not-entered: Requests on a `ClientSession` that was never entered (`async with`) now raise `RuntimeError`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP031", "from mcp import ClientSession\nsession = ClientSession(read, write)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp import ClientSession\nasync def f():\n    async with ClientSession(r, w) as s:\n        pass\n",
]


class TestMCP031(RuleTests):
    rule = "MCP031"
    cases = CASES
    negative = NEGATIVE

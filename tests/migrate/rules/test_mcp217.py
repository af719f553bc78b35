"""MCP217 raise-exceptions-narrowed: `server.run(..., raise_exceptions=True)` no longer re-raises transport (parse) errors."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP217", "from mcp.server.lowlevel import Server\nasync def f(app: Server) -> None:\n"
                   "    await app.run(r, w, o, raise_exceptions=True)\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(app):\n    app.run(raise_exceptions=True)\n",
]


class TestMCP217(RuleTests):
    rule = "MCP217"
    cases = CASES
    negative = NEGATIVE

"""MCP213 deprecated-roots: Roots deprecated (SEP-2577): `session.list_roots()`, `list_roots_callback=`, `send_roots_list_changed()`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP213", "from mcp.server.session import ServerSession\nasync def f(s: ServerSession) -> None:\n"
                   "    await s.send_roots_list_changed()\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(tree):\n    tree.send_roots_list_changed()\n",
]


class TestMCP213(RuleTests):
    rule = "MCP213"
    cases = CASES
    negative = NEGATIVE

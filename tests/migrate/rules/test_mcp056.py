"""MCP056 elicitation-result-isinstance: `isinstance(r, ElicitationResult)` -> the tuple of its member classes."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP056", """
        from mcp.server.elicitation import ElicitationResult
        def check(r: object) -> bool:
            return isinstance(r, ElicitationResult)
        """, """
        from mcp.server.elicitation import ElicitationResult
        from mcp.server.elicitation import AcceptedElicitation, DeclinedElicitation, CancelledElicitation
        def check(r: object) -> bool:
            return isinstance(r, (AcceptedElicitation, DeclinedElicitation, CancelledElicitation))
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mylib import ElicitationResult\nisinstance(1, ElicitationResult)\n",
]


class TestMCP056(RuleTests):
    rule = "MCP056"
    cases = CASES
    negative = NEGATIVE

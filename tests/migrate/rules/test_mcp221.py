"""MCP221 jsonrpc-error-null-id: `JSONRPCError.id` may be `None`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP221", "from mcp.types import JSONRPCError\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mylib import JSONRPCError\n",
]


class TestMCP221(RuleTests):
    rule = "MCP221"
    cases = CASES
    negative = NEGATIVE

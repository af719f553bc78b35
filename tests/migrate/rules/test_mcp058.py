"""MCP058 lowlevel-server-generic: `Server[L, R]` -> `Server[L]`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP058", """
        from typing import Any
        from mcp.server.lowlevel import Server
        def build() -> Server[dict[str, Any], Any]: ...
        """, """
        from typing import Any
        from mcp.server.lowlevel import Server
        def build() -> Server[dict[str, Any]]: ...
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "from mylib import Server\nx: Server[int, str]\n",
]


class TestMCP058(RuleTests):
    rule = "MCP058"
    cases = CASES
    negative = NEGATIVE

"""MCP067 timeout-code-408: Timeout detection by `e.error.code == 408` / `httpx.codes.REQUEST_TIMEOUT` silently never matches."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP067", """
        import httpx
        from mcp import McpError
        try:
            pass
        except McpError as e:
            timed_out = e.error.code == 408
            again = httpx.codes.REQUEST_TIMEOUT != e.error.code
        """, """
        import httpx
        from mcp import McpError
        from mcp.types import REQUEST_TIMEOUT
        try:
            pass
        except McpError as e:
            # TODO(mcp-migrate MCP067): 408 -> REQUEST_TIMEOUT (-32001), the code v2 raises for a request timeout
            timed_out = e.error.code == REQUEST_TIMEOUT
            # TODO(mcp-migrate MCP067): 408 -> REQUEST_TIMEOUT (-32001), the code v2 raises for a request timeout
            again = REQUEST_TIMEOUT != e.error.code
        """, {"review"}, 2),
    Case("MCP067", "from mcp import McpError\ntry:\n    pass\nexcept McpError as e:\n"
                   "    timed_out = 400 < e.error.code <= 408\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import requests\nr = requests.get('x')\nslow = r.status_code == 408\n",
]


class TestMCP067(RuleTests):
    rule = "MCP067"
    cases = CASES
    negative = NEGATIVE

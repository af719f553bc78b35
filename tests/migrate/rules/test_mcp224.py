"""MCP224 resource-not-found-code: Reading a missing resource answers -32602 with `data.uri` (was code 0)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP224", "from mcp.shared.exceptions import McpError\ndef check(exc: McpError) -> bool:\n"
                   "    return exc.error.code == 0\n", None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "import subprocess\nok = subprocess.run(['true']).returncode == 0\nresp = get()\nassert resp.code == 0\n",
    "from mcp.shared.exceptions import McpError\ndef check(exc: McpError) -> bool:\n    return exc.error.code == -32002\n",
]


class TestMCP224(RuleTests):
    rule = "MCP224"
    cases = CASES
    negative = NEGATIVE

"""MCP215 resource-template-matching: Template matching: path-safety checks on by default, literal `.` and
delimiters exact, `{var}` matches empty."""

from __future__ import annotations

from migrate_helpers import SERVER, Case, RuleTests

CASES: list[Case] = [
    Case("MCP215", SERVER + "@mcp.resource('users://{uid}/profile')\nasync def p(uid: str) -> str:\n    return uid\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', version='1')\n@mcp.resource('config://app')\n"
    "async def c() -> str:\n    return ''\n",
]


class TestMCP215(RuleTests):
    rule = "MCP215"
    cases = CASES
    negative = NEGATIVE

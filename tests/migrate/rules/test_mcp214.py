"""MCP214 lifespan-entered-once: Streamable HTTP enters `lifespan` once at manager start (was per session / per stateless request)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP214", "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', lifespan=ls, version='1')\n",
         None, {"manual"}, 1),
]

NEGATIVE: list[str] = [
    "from starlette.applications import Starlette\napp = Starlette(lifespan=ls)\n",
]


class TestMCP214(RuleTests):
    rule = "MCP214"
    cases = CASES
    negative = NEGATIVE

"""MCP054 ctx-client-id: `ctx.client_id` removed."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP054", """
        from mcp.server.fastmcp import Context
        def t(ctx: Context) -> str:
            return ctx.client_id
        """, """
        from mcp.server.fastmcp import Context
        def t(ctx: Context) -> str:
            # TODO(mcp-migrate MCP054): -> v1's value, the client id in the request _meta; you probably meant get_access_token().client_id
            return (ctx.request_context.meta or {}).get("client_id")
        """, {"review"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\ndef f(creds):\n    return creds.client_id\n",
]


class TestMCP054(RuleTests):
    rule = "MCP054"
    cases = CASES
    negative = NEGATIVE

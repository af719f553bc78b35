"""MCP041 requestparams-meta: `RequestParams.Meta` model -> `RequestParamsMeta` TypedDict."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP041", "import mcp.types as types\nmeta = types.RequestParams.Meta(progressToken=1)\n", None, {"manual"}, 1),
    Case("MCP041", """
        from mcp.server.fastmcp import Context
        async def t(ctx: Context) -> None:
            if ctx.request_context.meta and ctx.request_context.meta.progressToken:
                await ctx.session.send_progress_notification(ctx.request_context.meta.progressToken, 1)
        """, """
        from mcp.server.fastmcp import Context
        async def t(ctx: Context) -> None:
            if ctx.request_context.meta and ctx.request_context.meta.get("progress_token"):
                await ctx.session.send_progress_notification(ctx.request_context.meta.get("progress_token"), 1)
        """, {"fixed"}),
]

NEGATIVE: list[str] = [
    "import mcp.types\nclass RequestParams:\n    class Meta: ...\nRequestParams.Meta()\n",
    "import mcp.types\ndef f(job):\n    return job.meta.progressToken\n",
]


class TestMCP041(RuleTests):
    rule = "MCP041"
    cases = CASES
    negative = NEGATIVE

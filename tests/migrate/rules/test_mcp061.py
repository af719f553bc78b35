"""MCP061 lowlevel-run-stateless: `server.run(r, w, opts, stateless=True)` -> drop `stateless=`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP061", """
        from mcp.server.lowlevel import Server
        async def serve(server: Server, r, w, opts) -> None:
            await server.run(r, w, opts, stateless=True)
        """, """
        from mcp.server.lowlevel import Server
        async def serve(server: Server, r, w, opts) -> None:
            # TODO(mcp-migrate MCP061): `stateless=` dropped: statelessness now comes from StreamableHTTPSessionManager(stateless=True)
            await server.run(r, w, opts)
        """, {"review"}, 1),
]

NEGATIVE: list[str] = [
    "import mcp.types\nclass Runner:\n    def run(self, stateless=False): ...\nRunner().run(stateless=True)\n",
]


class TestMCP061(RuleTests):
    rule = "MCP061"
    cases = CASES
    negative = NEGATIVE

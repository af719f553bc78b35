"""MCP046 mount-path-removed: Drop `mount_path` from the constructor, `run()`, `run_sse_async()`, `sse_app()`."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP046", """
        from mcp.server.fastmcp import FastMCP
        mcp = FastMCP("x", mount_path="/mcp")
        """, """
        from mcp.server.fastmcp import FastMCP
        # TODO(mcp-migrate MCP046): `mount_path` dropped: mount the app under that path with Starlette's Mount instead
        mcp = FastMCP("x")
        """, {"review"}, 1),
]

NEGATIVE: list[str] = [
    "from starlette.routing import Mount\nm = Mount(path='/x', app=None)\nmount_path = '/x'\n",
]


class TestMCP046(RuleTests):
    rule = "MCP046"
    cases = CASES
    negative = NEGATIVE

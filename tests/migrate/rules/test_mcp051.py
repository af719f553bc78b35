"""MCP051 fileresource-is-binary: `FileResource(is_binary=...)` -> `encoding=` (unknown kwargs now raise)."""

from __future__ import annotations

from migrate_helpers import Case, RuleTests

CASES: list[Case] = [
    Case("MCP051", "from mcp.server.fastmcp.resources import FileResource\nr = FileResource(uri='file:///a', "
                   "path=p, is_binary=flag)\n", None, {"manual"}, 1),
    Case("MCP051", """
        from mcp.server.fastmcp.resources import FileResource
        a = FileResource(uri="file:///a", path=p, is_binary=True)
        b = FileResource(uri="file:///b", is_binary=False, path=p)
        """, """
        from mcp.server.fastmcp.resources import FileResource
        a = FileResource(uri="file:///a", path=p, encoding=None)
        # TODO(mcp-migrate MCP051): is_binary=False dropped (text is the default); v2 decodes utf-8-sig, not the locale encoding
        b = FileResource(uri="file:///b", path=p)
        """, {"fixed", "review"}, 1),
]

NEGATIVE: list[str] = [
    "from mylib import FileResource\nFileResource(is_binary=True)\n",
]


class TestMCP051(RuleTests):
    rule = "MCP051"
    cases = CASES
    negative = NEGATIVE

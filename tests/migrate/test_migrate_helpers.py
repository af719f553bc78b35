"""The shared test helpers behave as the per-rule modules rely on."""

from __future__ import annotations

from migrate_helpers import migrate_source


def test_migrate_source_takes_select_like_the_command_line() -> None:
    source = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x', port=1)\n"
    by_id = migrate_source(source, "MCP001")
    assert migrate_source(source, select="MCP001") == by_id == migrate_source(source, select=["fastmcp-renamed"])
    assert {f.rule for f in migrate_source(source, select="MCP001,MCP003")[1]} == {"MCP001", "MCP003"}

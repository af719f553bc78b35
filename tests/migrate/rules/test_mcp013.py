"""MCP013 indirect-mcp-dependency: `mcp` arrives only transitively and that package may cap `mcp<2`."""

from __future__ import annotations

from migrate_helpers import migrate_manifest


def test_mcp013_indirect_dependency_reported() -> None:
    new, findings = migrate_manifest("requirements.txt", "requirements", "fastmcp>=2\n", frozenset({"mcp"}), "MCP013")
    assert new == "fastmcp>=2\n" and [f.rule for f in findings] == ["MCP013"]
    assert migrate_manifest("requirements.txt", "requirements", "fastmcp\nmcp\n", frozenset({"mcp"}), "MCP013")[1] == []

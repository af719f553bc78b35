"""MCP081 pytest-deprecation-errors: `filterwarnings = ["error"]` turns `MCPDeprecationWarning` into failing tests."""

from __future__ import annotations

from migrate_helpers import migrate_manifest


def test_mcp081_pytest_error_filter() -> None:
    text = '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n'
    new, findings = migrate_manifest("pyproject.toml", "manifest", text, frozenset(), "MCP081")
    assert new == '[tool.pytest.ini_options]\nfilterwarnings = ["error", "ignore::mcp.MCPDeprecationWarning"]\n'
    assert migrate_manifest("pyproject.toml", "manifest", new, frozenset(), "MCP081") == (new, [])
    plain = '[tool.pytest.ini_options]\nfilterwarnings = ["ignore::DeprecationWarning"]\n'
    assert migrate_manifest("pyproject.toml", "manifest", plain, frozenset(), "MCP081") == (plain, [])

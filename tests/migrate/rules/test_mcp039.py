"""MCP039 conflicting-dependency-floors: Project pins below v2's floors (anyio<4.9, pydantic<2.12, sse-starlette<3, ...)."""

from __future__ import annotations

from migrate_helpers import migrate_manifest


def test_mcp039_conflicting_floors_reported() -> None:
    text = "mcp\npydantic<2.10\nanyio==4.5.0\nsse-starlette>=1.6\n"
    new, findings = migrate_manifest("requirements.txt", "requirements", text, frozenset(), "MCP039")
    assert new == text
    assert sorted(f.message.split("`")[1] for f in findings) == ["anyio==4.5.0", "pydantic<2.10"]

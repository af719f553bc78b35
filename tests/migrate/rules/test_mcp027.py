"""MCP027 pydantic-settings-undeclared: Own `pydantic_settings` import relied on mcp v1 to install it -> declare
`pydantic-settings` (MCP011 and MCP027 together: test_mcp011.py)."""

from __future__ import annotations

from migrate_helpers import migrate_manifest

IMPORTS = frozenset({"pydantic_settings"})


def test_the_requirement_is_added_next_to_mcp_and_a_second_run_adds_nothing() -> None:
    before = "# pinned\nmcp>=2.3,<3  # server\r\nrich\r\n"
    new, findings = migrate_manifest("requirements.txt", "requirements", before, IMPORTS, "MCP027")
    assert new == "# pinned\nmcp>=2.3,<3  # server\r\npydantic-settings>=2.5.2\r\nrich\r\n"
    assert [(f.rule, f.status, f.line) for f in findings] == [("MCP027", "review", 2)]
    assert migrate_manifest("requirements.txt", "requirements", new, IMPORTS, "MCP027") == (new, [])


def test_pyproject_dependencies_get_it_and_other_tables_keep_their_bytes() -> None:
    before = '[project]\nname = "srv"\ndependencies = ["mcp>=2.3,<3"]\n\n[tool.other]\nkeep  =  "as  written"  # note\n'
    new, _ = migrate_manifest("pyproject.toml", "manifest", before, IMPORTS, "MCP027")
    assert new == before.replace('["mcp>=2.3,<3"]', '["mcp>=2.3,<3", "pydantic-settings>=2.5.2"]')


def test_safe_only_reports_without_editing() -> None:
    new, findings = migrate_manifest("requirements.txt", "requirements", "mcp\n", IMPORTS, "MCP027", safe_only=True)
    assert new == "mcp\n" and [f.status for f in findings] == ["manual"]


def test_negative_declared_not_imported_or_no_mcp() -> None:
    for text, imports in (("mcp\npydantic_settings>=2\n", IMPORTS), ("mcp\n", frozenset({"pydantic"})),
                          ("flask\n", IMPORTS)):
        assert migrate_manifest("requirements.txt", "requirements", text, imports, "MCP027") == (text, [])

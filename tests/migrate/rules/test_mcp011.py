"""MCP011 httpx-undeclared: Own `import httpx` relied on mcp v1 to install httpx -> declare `httpx`."""

from __future__ import annotations

from pathlib import Path

from migrate_helpers import check_negative, migrate_manifest


def test_mcp011_and_mcp027_declare_dependencies_mcp_v1_installed() -> None:
    new, findings = migrate_manifest("requirements.txt", "requirements", "mcp>=2.3,<3\n", frozenset({"httpx", "pydantic_settings"}),
                        "MCP011", "MCP027")
    assert new == "mcp>=2.3,<3\npydantic-settings>=2.5.2\nhttpx>=0.27\n"
    assert {f.rule for f in findings} == {"MCP011", "MCP027"}
    again, more = migrate_manifest("requirements.txt", "requirements", new, frozenset({"httpx", "pydantic_settings"}),
                      "MCP011", "MCP027")
    assert again == new and more == []
    py, _ = migrate_manifest("pyproject.toml", "manifest", '[project]\ndependencies = ["mcp>=2.3,<3"]\n', frozenset({"httpx"}),
                "MCP011")
    assert 'dependencies = ["mcp>=2.3,<3", "httpx>=0.27"]' in py


def test_mcp011_negative_not_imported_or_no_mcp() -> None:
    assert migrate_manifest("requirements.txt", "requirements", "mcp\n", frozenset({"os"}), "MCP011") == ("mcp\n", [])
    assert migrate_manifest("requirements.txt", "requirements", "flask\n", frozenset({"httpx"}), "MCP011") == ("flask\n", [])


def test_mcp011_an_httpx_import_with_no_manifest_at_all_is_reported(tmp_path: Path) -> None:
    from migrate_helpers import migrate_source

    (tmp_path / ".git").mkdir()  # the checkout root: the search for a manifest stops here
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    source = "import httpx\nfrom mcp.server.fastmcp import FastMCP\n"
    _, findings = migrate_source(source, "MCP011", path=str(scripts / "server.py"))
    assert [(f.rule, f.status, f.line) for f in findings] == [("MCP011", "manual", 1)]
    (tmp_path / "requirements.txt").write_text("mcp\n")
    from mcp_eras.migrate.rules.mcp011_httpx_undeclared import has_manifest

    has_manifest.cache_clear()
    assert migrate_source(source, "MCP011", path=str(scripts / "other.py"))[1] == []


def test_python_half_negative() -> None:
    check_negative("MCP011", "import httpx2\nfrom mylib import httpx\n")

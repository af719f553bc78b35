"""Manifest rules: MCP002 (mcp pin), MCP011/MCP027 (undeclared deps), MCP013, MCP039, MCP081."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mcp_eras.migrate.engine import Options, transform_manifest
from mcp_eras.migrate.model import Finding
from mcp_eras.migrate.rules import select_rules


def run(name: str, kind: str, text: str, imports: frozenset[str] = frozenset(), *rules: str,
        safe_only: bool = False) -> tuple[str, list[Finding]]:
    chosen = tuple(rules) if rules else tuple(select_rules())
    new, findings, failure = transform_manifest(name, kind, textwrap.dedent(text), Options(chosen, safe_only), imports)
    assert failure is None, failure
    return new, findings


PYPROJECT = """
    [project]
    name = "srv"
    dependencies = [
        "anyio>=4.5",  # async
        'mcp[cli]>=1.9.0; python_version >= "3.10"',
    ]

    [dependency-groups]
    dev = ["mcp==1.13.1"]

    [tool.poetry.group.dev.dependencies]
    mcp = { version = "^1.9.2", extras = ["cli"] }
    """


def test_mcp002_pyproject_all_tables_format_preserved() -> None:
    new, findings = run("pyproject.toml", "manifest", PYPROJECT, frozenset(), "MCP002")
    assert "    \"anyio>=4.5\",  # async\n" in new
    assert "'mcp[cli]>=2.3,<3; python_version >= \"3.10\"'," in new
    assert 'dev = ["mcp>=2.3,<3"]' in new
    assert 'mcp = { version = ">=2.3,<3", extras = ["cli"] }' in new
    assert [f.status for f in findings] == ["review"] * 3
    again, more = run("pyproject.toml", "manifest", new, frozenset(), "MCP002")
    assert again == new and more == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("mcp\n", "mcp>=2.3,<3\n"),
        ("mcp[cli]~=1.9.0  # pinned\n", "mcp[cli]>=2.3,<3  # pinned\n"),
        ("mcp>=1.21,<2\r\n", "mcp>=2.3,<3\r\n"),
        ("mcp[ws]==1.2\n", "mcp>=2.3,<3\n"),
        ("mcp>=2.4\n", "mcp>=2.4\n"),
        ("mcpx>=1\n", "mcpx>=1\n"),
        ("-r base.txt\n# mcp==1.0\n", "-r base.txt\n# mcp==1.0\n"),
    ],
)
def test_mcp002_requirements(before: str, after: str) -> None:
    new, _ = run("requirements.txt", "requirements", before, frozenset(), "MCP002")
    assert new == after


def test_mcp002_setup_cfg_and_lockfile() -> None:
    new, _ = run("setup.cfg", "manifest", "[options]\ninstall_requires =\n    click\n    mcp>=1.2\n", frozenset(), "MCP002")
    assert new == "[options]\ninstall_requires =\n    click\n    mcp>=2.3,<3\n"
    lock, findings = run("uv.lock", "lockfile", '[[package]]\nname = "mcp"\nversion = "1.9.0"\n', frozenset(), "MCP002")
    assert lock.startswith("[[package]]") and [f.status for f in findings] == ["manual"]


def test_mcp002_safe_only_reports() -> None:
    new, findings = run("requirements.txt", "requirements", "mcp==1.0\n", frozenset(), "MCP002", safe_only=True)
    assert new == "mcp==1.0\n" and [f.status for f in findings] == ["manual"]


def test_invalid_toml_is_reported_not_rewritten_g9() -> None:
    text = '[project]\ndependencies = ["mcp"]\n[project]\nname = "x"\n'
    new, findings, failure = transform_manifest("pyproject.toml", "manifest", text, Options(("MCP002",)), frozenset())
    assert new == text and failure is not None and "TOML" in failure


def test_mcp011_and_mcp027_declare_dependencies_mcp_v1_installed() -> None:
    new, findings = run("requirements.txt", "requirements", "mcp>=2.3,<3\n", frozenset({"httpx", "pydantic_settings"}),
                        "MCP011", "MCP027")
    assert new == "mcp>=2.3,<3\npydantic-settings>=2.5.2\nhttpx>=0.27\n"
    assert {f.rule for f in findings} == {"MCP011", "MCP027"}
    again, more = run("requirements.txt", "requirements", new, frozenset({"httpx", "pydantic_settings"}),
                      "MCP011", "MCP027")
    assert again == new and more == []
    py, _ = run("pyproject.toml", "manifest", '[project]\ndependencies = ["mcp>=2.3,<3"]\n', frozenset({"httpx"}),
                "MCP011")
    assert 'dependencies = ["mcp>=2.3,<3", "httpx>=0.27"]' in py


def test_mcp011_negative_not_imported_or_no_mcp() -> None:
    assert run("requirements.txt", "requirements", "mcp\n", frozenset({"os"}), "MCP011") == ("mcp\n", [])
    assert run("requirements.txt", "requirements", "flask\n", frozenset({"httpx"}), "MCP011") == ("flask\n", [])


def test_mcp013_indirect_dependency_reported() -> None:
    new, findings = run("requirements.txt", "requirements", "fastmcp>=2\n", frozenset({"mcp"}), "MCP013")
    assert new == "fastmcp>=2\n" and [f.rule for f in findings] == ["MCP013"]
    assert run("requirements.txt", "requirements", "fastmcp\nmcp\n", frozenset({"mcp"}), "MCP013")[1] == []


def test_mcp039_conflicting_floors_reported() -> None:
    text = "mcp\npydantic<2.10\nanyio==4.5.0\nsse-starlette>=1.6\n"
    new, findings = run("requirements.txt", "requirements", text, frozenset(), "MCP039")
    assert new == text
    assert sorted(f.message.split("`")[1] for f in findings) == ["anyio==4.5.0", "pydantic<2.10"]


def test_mcp081_pytest_error_filter() -> None:
    text = '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n'
    new, findings = run("pyproject.toml", "manifest", text, frozenset(), "MCP081")
    assert new == '[tool.pytest.ini_options]\nfilterwarnings = ["error", "ignore::mcp.MCPDeprecationWarning"]\n'
    assert run("pyproject.toml", "manifest", new, frozenset(), "MCP081") == (new, [])
    plain = '[tool.pytest.ini_options]\nfilterwarnings = ["ignore::DeprecationWarning"]\n'
    assert run("pyproject.toml", "manifest", plain, frozenset(), "MCP081") == (plain, [])


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

"""MCP002 mcp-dependency-pin: Rewrite the `mcp` requirement to the v2 range (>=2.3,<3) in every manifest."""

from __future__ import annotations

import pytest
from migrate_helpers import migrate_manifest

from mcp_eras.migrate.engine import Options, transform_manifest

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
    new, findings = migrate_manifest("pyproject.toml", "manifest", PYPROJECT, frozenset(), "MCP002")
    assert "    \"anyio>=4.5\",  # async\n" in new
    assert "'mcp[cli]>=2.3,<3; python_version >= \"3.10\"'," in new
    assert 'dev = ["mcp>=2.3,<3"]' in new
    assert 'mcp = { version = ">=2.3,<3", extras = ["cli"] }' in new
    assert [f.status for f in findings] == ["review"] * 3
    again, more = migrate_manifest("pyproject.toml", "manifest", new, frozenset(), "MCP002")
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
    new, _ = migrate_manifest("requirements.txt", "requirements", before, frozenset(), "MCP002")
    assert new == after


def test_mcp002_setup_cfg_and_lockfile() -> None:
    new, _ = migrate_manifest("setup.cfg", "manifest", "[options]\ninstall_requires =\n    click\n    mcp>=1.2\n", frozenset(), "MCP002")
    assert new == "[options]\ninstall_requires =\n    click\n    mcp>=2.3,<3\n"
    lock, findings = migrate_manifest("uv.lock", "lockfile", '[[package]]\nname = "mcp"\nversion = "1.9.0"\n', frozenset(), "MCP002")
    assert lock.startswith("[[package]]") and [f.status for f in findings] == ["manual"]


def test_mcp002_safe_only_reports() -> None:
    new, findings = migrate_manifest("requirements.txt", "requirements", "mcp==1.0\n", frozenset(), "MCP002", safe_only=True)
    assert new == "mcp==1.0\n" and [f.status for f in findings] == ["manual"]


def test_invalid_toml_is_reported_not_rewritten_g9() -> None:
    text = '[project]\ndependencies = ["mcp"]\n[project]\nname = "x"\n'
    new, findings, failure = transform_manifest("pyproject.toml", "manifest", text, Options(("MCP002",)), frozenset())
    assert new == text and failure is not None and "TOML" in failure

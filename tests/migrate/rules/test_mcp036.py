"""MCP036 decorator-positional-description: which v1 release the project was written for decides."""

from __future__ import annotations

from pathlib import Path

import pytest
from migrate_helpers import dedent, migrate_source

from mcp_eras.migrate.rules._lib.v1_version import admitted

SOURCE = """
from mcp.server.fastmcp import FastMCP
mcp = FastMCP("x")
@mcp.tool("add", "Adds numbers")
async def add(a: int) -> int:
    return a
@mcp.prompt("greet", "Greets")
def greet() -> str:
    return "hi"
mcp.add_tool(add, "add2", "Adds again")
"""


def _project(tmp_path: Path, requirement: str | None) -> str:
    (tmp_path / ".git").mkdir()
    if requirement is not None:
        (tmp_path / "requirements.txt").write_text(f"{requirement}\n")
    return str(tmp_path / "server.py")


def test_written_for_releases_before_1_10_the_description_is_passed_by_keyword(tmp_path: Path) -> None:
    path = _project(tmp_path, "mcp[cli]~=1.9.0")
    new, findings = migrate_source(SOURCE, "MCP036", path=path)
    assert new == dedent(SOURCE).replace('"add", "Adds numbers"', '"add", description="Adds numbers"').replace(
        '"greet", "Greets"', '"greet", description="Greets"').replace('"add2", "Adds again"',
                                                                      '"add2", description="Adds again"')
    assert {f.status for f in findings} == {"fixed"}
    assert migrate_source(new, "MCP036", path=path) == (new, [])


@pytest.mark.parametrize("requirement", ["mcp>=1.10", "mcp==1.29.0", "mcp>=2.3"])
def test_written_for_1_10_or_later_nothing_changes(tmp_path: Path, requirement: str) -> None:
    source = dedent(SOURCE)
    assert migrate_source(source, "MCP036", path=_project(tmp_path, requirement)) == (source, [])


@pytest.mark.parametrize("requirement", [None, "mcp>=1.6", "mcp"])
def test_unknown_or_across_1_10_is_reported(tmp_path: Path, requirement: str | None) -> None:
    new, findings = migrate_source(SOURCE, "MCP036", path=_project(tmp_path, requirement))
    assert new.count("# TODO(mcp-migrate MCP036)") == 3 and {f.status for f in findings} == {"manual"}


def test_specifiers() -> None:
    assert {r[:2] for r in admitted("~=1.9.0") or ()} == {(1, 9)}
    assert admitted("<1.10,>=1.8") and all(r < (1, 10, 0) for r in admitted("<1.10,>=1.8") or ())
    assert admitted("^1.9") and (1, 30, 0) in (admitted("^1.9") or ())
    assert admitted(">=2") == () and admitted("garbage!") is None


def test_negative() -> None:
    source = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n@mcp.tool('add', description='Adds')\n" \
             "async def add(a: int) -> int:\n    return a\n"
    assert migrate_source(source, "MCP036") == (source, [])


@pytest.mark.xfail(strict=True, reason="known gap: a lockfile (uv.lock, poetry.lock) pinning the release is not read")
def test_a_lockfile_decides(tmp_path: Path) -> None:
    path = _project(tmp_path, "mcp")
    (tmp_path / "uv.lock").write_text('[[package]]\nname = "mcp"\nversion = "1.9.4"\n')
    assert 'description="Adds numbers"' in migrate_source(SOURCE, "MCP036", path=path)[0]

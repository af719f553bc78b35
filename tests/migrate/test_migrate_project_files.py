"""Issue 31: the project around the code -- the manifests of the nearest project root when a path below
it is given (``mcp-migrate ./src``, the README's own example), manifests in UTF-16/32 by their byte-order
mark (a Windows ``pip freeze``), exact marker counts and relative paths in what the tool prints."""

from __future__ import annotations

import codecs
import subprocess
from pathlib import Path

import pytest
from test_migrate_cli import run_cli

SERVER = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n"
PYPROJECT = '[project]\nname = "x"\nversion = "0"\ndependencies = ["mcp[cli]>=1.9,<2"]\n'


def _project(root: Path) -> Path:
    (root / "src" / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "src" / "app" / "server.py").write_text(SERVER)
    return root


def test_a_path_below_the_root_brings_the_roots_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_project(tmp_path))
    code, out, err = run_cli(["./src"], capsys)
    assert code == 0, err
    assert '"mcp[cli]>=2.3,<3"' in (tmp_path / "pyproject.toml").read_text()
    assert "manifest(s) above the given path: pyproject.toml" in err
    assert "pyproject.toml:4:1: MCP002" in out and str(tmp_path) not in out


def test_the_root_is_not_searched_past_the_checkout(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "server.py").write_text(SERVER)
    monkeypatch.chdir(repo)
    code, _, err = run_cli(["."], capsys)
    assert code == 0, err
    assert "above the given path" not in err and "<2" in (tmp_path / "pyproject.toml").read_text()


@pytest.mark.parametrize(("mark", "encoding"), [(codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
                                                (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF8, "utf-8")])
def test_a_requirements_file_is_read_and_written_in_its_own_encoding(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], mark: bytes, encoding: str) -> None:
    (tmp_path / "server.py").write_text(SERVER)
    requirements = tmp_path / "requirements.txt"
    requirements.write_bytes(mark + "mcp==1.9.4\r\nrich==13.7.1\r\n".encode(encoding))
    code, _, err = run_cli([str(tmp_path)], capsys)
    assert code == 0, err
    data = requirements.read_bytes()
    assert data.startswith(mark)
    assert data[len(mark):].decode(encoding) == "mcp>=2.3,<3\r\nrich==13.7.1\r\n"


def test_check_counts_the_markers_left_in_the_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "server.py").write_text("from mcp.server.fastmcp import FastMCP\n"
                                        "def build():\n    return FastMCP('x', port=1)\n")
    run_cli([str(tmp_path)], capsys)
    left = (tmp_path / "server.py").read_text().count("# TODO(mcp-migrate ")
    assert left >= 1
    _, out, _ = run_cli(["check", str(tmp_path)], capsys)
    assert f"{left} TODO markers left" in out


def test_the_dirty_tree_refusal_names_relative_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_project(tmp_path))
    git = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "."], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    (tmp_path / "src" / "app" / "server.py").write_text(SERVER + "# edited\n")
    code, _, err = run_cli(["src"], capsys, vcs=True)
    assert code == 2 and "  src/app/server.py\n" in err and str(tmp_path) not in err

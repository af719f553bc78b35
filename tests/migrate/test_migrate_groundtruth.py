"""tests/migrate/groundtruth.py (the measure behind bench/migrate_groundtruth.py): pairs v1 examples with their hand
ports and compares by AST
(docstrings and import order normalised); a missing checkout is skipped cleanly."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import groundtruth as gt

V1 = '''"""A demo."""
from mcp.server.fastmcp import FastMCP
import os

mcp = FastMCP("demo", version="1")


@mcp.tool()
async def home() -> str:
    """Where am I."""
    return os.getcwd()
'''
V2 = '''import os

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("demo", version="1")


@mcp.tool()
async def home() -> str:
    """Current directory (reworded)."""
    return os.getcwd()
'''


def _repo(root: Path) -> tuple[str, str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True,
                              text=True).stdout.strip()

    (root / "examples" / "fastmcp").mkdir(parents=True)
    (root / "examples" / "fastmcp" / "demo.py").write_text(V1)
    (root / "examples" / "other.py").write_text("import os\nprint(os.sep)\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "v1")
    v1 = git("rev-parse", "HEAD")
    git("rm", "-rq", "examples/fastmcp")
    (root / "examples" / "mcpserver").mkdir(parents=True)
    (root / "examples" / "mcpserver" / "demo.py").write_text(V2)
    (root / "examples" / "other.py").write_text("import os\nprint(os.linesep)\n")  # a change no rule explains
    git("add", ".")
    git("commit", "-qm", "v2")
    return v1, git("rev-parse", "HEAD")


def test_pairs_are_compared_by_normalised_ast(tmp_path: Path) -> None:
    v1, main = _repo(tmp_path / "sdk")
    outcome = gt.measure(tmp_path / "sdk", v1, main)
    data = outcome.to_json()
    assert data["pairs"] == 2 and data["matched"] == 1
    assert data["differ"] == ["examples/other.py"]
    assert data["per_kind"]["MCP001"] == {"pairs": 1, "matched": 1}
    assert data["per_kind"]["no-rule"] == {"pairs": 1, "matched": 0}
    assert "1 of 2 pairs match" in gt.render(outcome)
    assert list(outcome.diffs) == ["examples/other.py"]  # --diff: what the catalogue did not explain
    assert "-print(os.sep)\n+print(os.linesep)\n" in outcome.diffs["examples/other.py"]


def test_pairs_no_rule_can_match_are_counted_apart(tmp_path: Path) -> None:
    v1, main = _repo(tmp_path / "sdk")
    outcome = gt.measure(tmp_path / "sdk", v1, main, out_of_target={"examples/other.py": "a hand edit"})
    data = outcome.to_json()
    assert data["target"] == {"pairs": 1, "matched": 1, "differ": []}
    assert data["out_of_target"] == {"examples/other.py": "a hand edit"}
    text = gt.render(outcome)
    assert "target (the difference is one the catalogue explains): 1 of 1 match" in text
    assert "  examples/other.py: a hand edit" in text
    assert all(p.startswith("examples/") for p in gt.OUT_OF_TARGET)  # the pinned table names SDK example pairs


def test_normalisation_ignores_docstrings_and_import_order_only() -> None:
    assert gt.same('"""doc"""\nimport b\nimport a\nx = 1\n', "import a\nimport b\nx = 1\n")
    assert gt.same("from m import b, a\n", "from m import a, b\n")
    assert not gt.same("x = 1\n", "x = 2\n")


def test_a_missing_checkout_is_skipped_cleanly(tmp_path: Path) -> None:
    outcome = gt.measure(tmp_path / "absent")
    assert outcome.skipped and outcome.pairs == []
    assert gt.render(outcome).startswith("skipped: ")
    assert gt.main([str(tmp_path / "absent")]) == 0

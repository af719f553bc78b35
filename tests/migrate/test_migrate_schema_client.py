"""Issue 31 acceptance 2: a packaged client + server whose client keeps its session on ``self`` (the
SDK's client quickstart) and reads every tool's ``inputSchema`` in a comprehension runs the same under
mcp 2.3.0 after one migration run as under mcp 1.29 before it.

``tests/migrate/data/schema_pkg`` was written for this test; ``python -m schemas`` starts the server
over stdio, lists and calls its tools and prints what the client read as JSON.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from migrate_helpers import migrate_tree

from peers import legacy_python

DATA = Path(__file__).resolve().parent / "data" / "schema_pkg"

pytestmark = [pytest.mark.legacy_peer]


def _run(python: str, root: Path) -> str:
    proc = subprocess.run([python, "-m", "schemas"], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


def test_the_client_reads_the_same_schemas_after_migration(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(DATA, old)
    shutil.copytree(DATA, new)
    assert migrate_tree(new) == 0
    client = (new / "schemas" / "client.py").read_text()
    assert 'tool.input_schema.get("required", [])' in client and "TODO(mcp-migrate MCP005)" not in client
    before = _run(legacy_python(), old)
    assert '"properties": ["a", "b"]' in before
    assert _run(sys.executable, new) == before
    assert migrate_tree(new, "fix", "--diff") == 0  # a second run changes nothing
    assert (new / "schemas" / "client.py").read_text() == client

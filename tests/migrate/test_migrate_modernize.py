"""Issue 31 acceptance 4: ``mcp-migrate --modernize``. A v1 server whose tools ask the client mid-call
(``ctx.elicit()``, ``ctx.session.create_message()``, ``ctx.session.list_roots()``), migrated with
``--modernize`` and run under mcp 2.3.0, answers a 2025-11-25 client (mcp 1.29, through server-to-client
requests) and a 2026-07-28 client (mcp 2.3.0, through ``input_required`` rounds) with the results the
v1 server gave under mcp 1.29. The same server migrated without ``--modernize`` fails every one of those
calls for the 2026 client (what the option is for, and proof that this test can fail).

``tests/migrate/data/modernize_input`` was written for this test: ``server.py`` (the v1 server; only it
is migrated), ``client_2025.py``, ``client_2026.py`` and ``answers.py`` (what both clients answer).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from migrate_helpers import migrate_tree

from peers import legacy_python

DATA = Path(__file__).resolve().parent / "data" / "modernize_input"
TIMEOUT = 300  # a hang guard for one client run on a loaded machine (the clients bound themselves at 240 s)

pytestmark = [pytest.mark.legacy_peer]


def _report(client_python: str, client: str, server_python: str, server: Path) -> dict[str, Any]:
    proc = subprocess.run([client_python, str(DATA / client), server_python, str(server)], capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _migrated(tmp_path: Path, name: str, *options: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(DATA / "server.py", folder / "server.py")
    assert migrate_tree(folder, *options) == 0
    return folder / "server.py"


@pytest.fixture(scope="module")
def v1_calls() -> list[dict[str, Any]]:
    """What the unmigrated server answers a 2025 client under mcp 1.29 (the behaviour to keep)."""
    report = _report(legacy_python(), "client_2025.py", legacy_python(), DATA / "server.py")
    assert report["protocol"] == "2025-11-25"
    calls = report["calls"]
    assert [c["asked"] for c in calls] == [["elicitation"], ["elicitation"], ["elicitation"], [], ["sampling"], ["roots"]]
    assert not any(c["error"] for c in calls)
    return calls


def test_modernized_server_answers_both_eras_as_v1_did(tmp_path: Path, v1_calls: list[dict[str, Any]]) -> None:
    server = _migrated(tmp_path, "modern", "--modernize")
    text = server.read_text()
    assert "ctx.elicit" not in text and "create_message" not in text and "list_roots()" not in text
    assert "Resolve(_book_answer)" in text and "TODO(mcp-migrate" not in text
    assert 'if date == "12-25":\n        return Elicit(' in text  # the question stays conditional
    assert 'prompt = f"Summarize: {text}"\n    return Sample(' in text  # its local is computed in the resolver

    legacy = _report(legacy_python(), "client_2025.py", sys.executable, server)
    assert legacy["protocol"] == "2025-11-25"
    assert legacy["calls"] == v1_calls

    modern = _report(sys.executable, "client_2026.py", sys.executable, server)
    assert modern["protocol"] == "2026-07-28"
    assert modern["calls"] == v1_calls  # same texts, and each call asked once, through an input_required round

    assert migrate_tree(server.parent, "fix", "--diff", "--modernize") == 0  # a second run changes nothing
    assert server.read_text() == text


def test_without_modernize_the_2026_client_gets_errors(tmp_path: Path, v1_calls: list[dict[str, Any]]) -> None:
    server = _migrated(tmp_path, "plain")
    assert "await ctx.elicit(" in server.read_text()
    legacy = _report(legacy_python(), "client_2025.py", sys.executable, server)
    assert legacy["calls"] == v1_calls
    modern = _report(sys.executable, "client_2026.py", sys.executable, server)
    assert modern["protocol"] == "2026-07-28"
    failed = [c for c in modern["calls"] if c["error"]]
    assert len(failed) == 5 and all(c["asked"] == [] for c in modern["calls"]), modern  # all but the unasked one
    assert all("back-channel" in c["text"][0] for c in failed), modern

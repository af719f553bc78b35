"""Acceptance 3: `mcp-bridge verify OLD NEW` passes on the faithful pair (the mcp 1.29 legacy sample
and its mcp 2.3.0 modern twin, across eras and transports) and fails, with a readable diff, when a
description, a schema or a result differs."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path

import fleet_peers as fp
import pytest

pytestmark = [pytest.mark.legacy_peer, fp.needs_modern_upstream]

CALLS = [
    {"tool": "add", "arguments": {"a": 2, "b": 3}},
    {"tool": "echo", "arguments": {"text": "héllo"}},
    {"tool": "weather", "arguments": {"city": "Paris"}},
    {"tool": "fail"},
    {"method": "resources/read", "params": {"uri": "memo://config"}},
    {"method": "resources/read", "params": {"uri": "greeting://bob"}},
    {"method": "prompts/get", "params": {"name": "review", "arguments": {"code": "fn main() {}", "language": "rust"}}},
    {"method": "completion/complete", "params": {"ref": {"type": "ref/prompt", "name": "review"},
                                                 "argument": {"name": "language", "value": "py"}}},
]


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    path = tmp_path / "calls.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in CALLS) + "\n")
    return path


@pytest.fixture(scope="module")
def modern_http() -> Iterator[str]:
    port = fp.peers.free_port()
    with fp.peers.running(fp.modern_cmd("http", "--port", str(port), "--modern-only"), port):
        yield f"http://127.0.0.1:{port}/mcp"


def cmdline(argv: list[str]) -> str:
    return shlex.join(argv)


def test_faithful_pair_is_equivalent(calls: Path) -> None:
    proc = fp.run_cli("verify", cmdline(fp.legacy_cmd("stdio")), cmdline(fp.modern_cmd("stdio", "--modern-only")),
                      "--calls", str(calls))
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "compared: tools 8, prompts 2, resources 3, resourceTemplates 1, calls 8" in proc.stdout
    assert "EQUIVALENT: no differences" in proc.stdout


def test_faithful_pair_across_transports_json(calls: Path, modern_http: str) -> None:
    proc = fp.run_cli("verify", cmdline(fp.legacy_cmd("stdio")), modern_http, "--calls", str(calls), "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    report = json.loads(proc.stdout)
    assert report["ok"] is True and report["differences"] == []
    assert report["compared"] == {"tools": 8, "prompts": 2, "resources": 3, "resourceTemplates": 1, "calls": 8}


@pytest.mark.parametrize(("drift", "expected"), [
    ("description", ["~ tools 'echo': changed", '-  "description": "Echo the text back.",',
                     '+  "description": "Echo the text back, verbatim.",']),
    ("schema", ["~ tools 'add': changed", '-        "type": "integer"', '+        "type": "number"']),
    ("result", ['~ calls \'tools/call add {"a": 2, "b": 3}\': changed', '-        "text": "5",', '+        "text": "6",']),
    ("missing", ["- prompts 'hello': only in OLD"]),
])
def test_drift_is_reported(calls: Path, drift: str, expected: list[str]) -> None:
    proc = fp.run_cli("verify", cmdline(fp.legacy_cmd("stdio")), cmdline(fp.drift_cmd(drift)), "--calls", str(calls))
    assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
    assert "DIVERGENT: 1 difference(s)" in proc.stdout, proc.stdout
    lines = [line.strip() for line in proc.stdout.splitlines()]
    for row in expected:
        assert row.strip() in lines, f"{row!r} not in:\n{proc.stdout}"


def test_drift_json_names_the_section(modern_http: str) -> None:
    proc = fp.run_cli("verify", modern_http, cmdline(fp.drift_cmd("description", "missing")), "--json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["ok"] is False
    assert [(d["section"], d["item"], d["kind"]) for d in report["differences"]] == [
        ("tools", "echo", "changed"), ("prompts", "hello", "only-old")]
    assert report["compared"]["calls"] == 0  # no replay unless asked


def test_unreachable_side_is_an_error_not_a_pass() -> None:
    port = fp.peers.free_port()
    proc = fp.run_cli("verify", cmdline(fp.legacy_cmd("stdio")), f"http://127.0.0.1:{port}/mcp")
    assert proc.returncode == 2
    assert "verify could not run" in proc.stderr

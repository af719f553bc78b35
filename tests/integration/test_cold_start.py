"""Cold start of the stdio front: real clients through ``mcp-bridge serve --stdio`` spawn the server exactly once.

The era probe's child is the session's child (2026-07-28 basic/transports/stdio.mdx §Backward Compatibility: probe
with ``server/discover``, fall back to ``initialize`` on the same connection), for a 2025 server and a 2026 one, with
a 2026 client (mcp 2.3.0 in its default auto mode) and a 2025 client (mcp 1.29). Every server start goes through
``bench/spawn_counter.py``, which logs one line per start. No timing assertion: the figures are the benchmark's.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import peers

DRIVER = str(peers.ROOT / "tests" / "published" / "driver.py")
COUNTER = str(peers.ROOT / "bench" / "spawn_counter.py")
PLAN = [{"op": "list_tools"}, {"op": "call_tool", "name": "echo", "args": {"text": "cold"}}]

# mcp 2.3.0 in auto mode, with its 10 s discover timeout cut to 1 s: a server slower than that makes the client fall
# back to initialize on the same pipe, which the bridge (serving 2026 on it) refuses with -32022 naming its versions.
IMPATIENT_AUTO = (
    "import runpy, sys\n"
    "import mcp.client.session as session\n"
    "session.DISCOVER_TIMEOUT_SECONDS = 1.0\n"
    "sys.argv = [sys.argv[1], *sys.argv[2:]]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)

pytestmark = pytest.mark.legacy_peer


def servers(legacy_python: str) -> dict[str, list[str]]:
    return {
        "legacy": [legacy_python, str(peers.SAMPLES / "legacy" / "everything_server.py")],
        "modern": [peers.MODERN_PYTHON, str(peers.SAMPLES / "modern" / "everything_server.py")],
    }


def run_bridged(client: list[str], mode: str, server: list[str], log: Path, delay: float = 0.0,
                upstream_era: str = "auto") -> dict:
    counted = [peers.MODERN_PYTHON, COUNTER, str(log), *(["--delay", str(delay)] if delay else []), "--", *server]
    bridge = [*peers.bridge_cmd(), "serve", "--stdio", "--log-level", "error", "--upstream-era", upstream_era, "--", *counted]
    proc = subprocess.run([*client, "--mode", mode, "--plan", json.dumps(PLAN), "--", *bridge],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def starts(log: Path) -> int:
    return len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


def assert_answered(out: dict) -> None:
    steps = out["steps"]
    assert [s["op"] for s in steps] == ["list_tools", "call_tool"], steps
    assert all("result" in s for s in steps), steps
    assert any(t["name"] == "echo" for t in steps[0]["result"]["tools"]), steps[0]
    assert steps[1]["result"]["content"][0]["text"].endswith("cold"), steps[1]


@pytest.mark.parametrize("era", ["legacy", "modern"])
@pytest.mark.parametrize("client", ["v2-auto", "v1"])
def test_one_child_on_cold_start(era: str, client: str, legacy_python: str, tmp_path: Path) -> None:
    log = tmp_path / "starts.log"
    python = peers.MODERN_PYTHON if client == "v2-auto" else legacy_python
    out = run_bridged([python, DRIVER], "auto" if client == "v2-auto" else "legacy", servers(legacy_python)[era], log)
    assert_answered(out)
    assert starts(log) == 1, log.read_text()


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_auto_mode_connects_after_its_discover_timed_out(era: str, legacy_python: str, tmp_path: Path) -> None:
    """The server loads for 3 s, the client waits 1 s for server/discover, then sends initialize on the same pipe:
    answered -32022 with the supported versions (not -32601), the client re-probes and connects; one child."""
    log = tmp_path / "starts.log"
    client = [peers.MODERN_PYTHON, "-c", IMPATIENT_AUTO, DRIVER]
    out = run_bridged(client, "auto", servers(legacy_python)[era], log, delay=3.0)
    assert_answered(out)
    assert starts(log) == 1, log.read_text()


@pytest.mark.parametrize("client", ["v2-auto", "v1"])
def test_pinned_legacy_upstream_starts_one_child(client: str, legacy_python: str, tmp_path: Path) -> None:
    """``--upstream-era 2025-11-25``: start() spawns the child (fail fast) without initializing it; the first
    client's session adopts it and sends its own initialize (no provisional session of the bridge's identity)."""
    log = tmp_path / "starts.log"
    python = peers.MODERN_PYTHON if client == "v2-auto" else legacy_python
    out = run_bridged([python, DRIVER], "auto" if client == "v2-auto" else "legacy", servers(legacy_python)["legacy"], log,
                      upstream_era="2025-11-25")
    assert_answered(out)
    assert starts(log) == 1, log.read_text()


def test_pinned_legacy_upstream_that_exits_at_once_fails_at_start(legacy_python: str, tmp_path: Path) -> None:
    """Fail fast without a provisional session: a child that exits right away is reported when the bridge starts."""
    bridge = [*peers.bridge_cmd(), "serve", "--stdio", "--log-level", "error", "--upstream-era", "2025-11-25", "--",
              legacy_python, "-c", "raise SystemExit(3)"]
    proc = subprocess.run(bridge, input="", capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "exited" in proc.stderr and "3" in proc.stderr, proc.stderr[-2000:]

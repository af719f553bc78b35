"""Helpers to run real peers (sample servers, clients of both eras, the bridge) as subprocesses."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
MODERN_PYTHON = sys.executable
"""The test environment's interpreter: mcp 2.3.0 is installed here."""


def legacy_python() -> str:
    """Interpreter of the mcp 1.x peer environment (built by .ci/bootstrap.sh)."""
    path = os.environ.get("MCP_ERAS_LEGACY_PYTHON") or str(ROOT / ".venvs" / "mcp1" / "bin" / "python")
    if not Path(path).exists():
        raise RuntimeError(f"legacy peer environment missing at {path}: run `bash .ci/bootstrap.sh`")
    return path


def tasks_peer_python() -> str:
    """Interpreter of the 2026 tasks-extension peer environment (FastMCP 4 + fastmcp-tasks, built by .ci/bootstrap.sh)."""
    path = os.environ.get("MCP_ERAS_TASKS_PYTHON") or str(ROOT / ".venvs" / "fastmcp" / "bin" / "python")
    if not Path(path).exists():
        raise RuntimeError(f"tasks peer environment missing at {path}: run `bash .ci/bootstrap.sh`")
    return path


def server_everything() -> list[str]:
    """npm @modelcontextprotocol/server-everything (2025-era, TypeScript SDK), installed by .ci/bootstrap.sh."""
    path = ROOT / ".venvs" / "npm" / "node_modules" / ".bin" / "mcp-server-everything"
    if not path.exists():
        raise RuntimeError(f"server-everything missing at {path}: run `bash .ci/bootstrap.sh` (needs npm)")
    return [str(path)]


def bridge_cmd() -> list[str]:
    return [MODERN_PYTHON, "-m", "mcp_eras.bridge"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


STARTUP_TIMEOUT = 180.0
"""Bound on a subprocess's start-up (until it listens): a hang guard, generous because a loaded machine
starts interpreters slowly; a process that exits early fails at once."""


def wait_port(port: int, proc: subprocess.Popen | None = None, timeout: float = STARTUP_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout}s")


@contextlib.contextmanager
def running(cmd: list[str], port: int | None = None, env: dict[str, str] | None = None,
            timeout: float = STARTUP_TIMEOUT) -> Iterator[subprocess.Popen]:
    """Run ``cmd`` (stderr inherited, stdout discarded); wait for ``port``; terminate on exit."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=full_env)
    try:
        if port is not None:
            wait_port(port, proc, timeout)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

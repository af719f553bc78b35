"""Helpers for the product tests: run the CLIs, start a bridge and learn its port from its own log."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import peers

HERE = Path(__file__).resolve().parent
TINY = HERE / "tiny_modern_server.py"
LISTENING = re.compile(r"listening on http://(?P<host>[^:/\]]+|\[[^\]]+\]):(?P<port>\d+)")
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "product-test", "version": "1"}}


def bridge(*args: str, env: dict[str, str] | None = None, stdin: str | None = "", timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*peers.bridge_cmd(), *args], input=stdin, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def script(name: str) -> list[str]:
    """A console script of this environment (``mcp-bridge``, ``mcp-migrate``, ``mcp-eras``)."""
    path = Path(sys.executable).parent / name
    if path.exists():
        return [str(path)]
    module = {"mcp-bridge": "mcp_eras.bridge.cli", "mcp-migrate": "mcp_eras.migrate.cli", "mcp-eras": "mcp_eras.cli"}[name]
    return [sys.executable, "-c", f"import {module} as m; m.main()"]


def tiny_cmd() -> list[str]:
    return [sys.executable, str(TINY)]


def assert_one_line_error(proc: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mcp-bridge: "), lines[0]
    assert needle in lines[0], lines[0]


def request(rid: int, method: str, params: dict | None = None) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**(params or {}), "_meta": META}}


class Running:
    """A bridge subprocess whose stderr is read line by line (the port comes from its "listening" log)."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None, stdin: int | None = subprocess.DEVNULL) -> None:
        self.proc = subprocess.Popen([*peers.bridge_cmd(), *args], stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
                                     start_new_session=True)
        self.log: list[str] = []

    def wait_listening(self, timeout: float = peers.STARTUP_TIMEOUT) -> int:
        assert self.proc.stderr is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                raise RuntimeError("bridge exited before listening:\n" + "".join(self.log))
            self.log.append(line)
            match = LISTENING.search(line)
            if match:
                return int(match["port"])
        raise TimeoutError("no 'listening' line:\n" + "".join(self.log))

    def interrupt(self, timeout: float = 30) -> tuple[int, str]:
        """Ctrl-C as a terminal sends it (to the bridge's whole process group), and the rest of stderr."""
        os.killpg(self.proc.pid, signal.SIGINT)
        _, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, "".join(self.log) + err

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


@contextlib.contextmanager
def running(args: list[str], env: dict[str, str] | None = None) -> Iterator[Running]:
    r = Running(args, env)
    try:
        yield r
    finally:
        r.close()


def pids_from(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (its parent, the bridge, has exited; init reaps it).
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    return True


def tool_text(response: dict) -> dict:
    return json.loads(response["result"]["content"][0]["text"])

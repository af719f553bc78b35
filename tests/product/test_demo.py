"""samples/demo.sh: checks its port before anything slow, and installs no test tools."""

from __future__ import annotations

import os
import socket
import subprocess

import peers

DEMO = peers.SAMPLES / "demo.sh"


def test_demo_stops_at_once_when_its_port_is_taken() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(["bash", str(DEMO)], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "MCP_ERAS_DEMO_PORT": str(port)})
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"demo: port {port} on 127.0.0.1 is already in use; free it or run with "
                                   "MCP_ERAS_DEMO_PORT=<another port>")
    assert proc.stdout == ""


def test_demo_installs_only_the_demo_extra() -> None:
    text = DEMO.read_text()
    assert '-e ".[demo]"' in text and "[test]" not in text and "bootstrap.sh" not in text.split("\n", 12)[-1]
    assert "PYTHONUNBUFFERED=1" in text

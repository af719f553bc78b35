"""Issue #30, acceptance 2 (the children part): the HTTP front over a 2025 stdio server, three clients of different
identities one after another: the probe's child serves the first, and after the third has gone at most one child
is alive once ``pool_departed_timeout`` (30 s by default; closed within 1.5 x of it) has passed."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

import peers

pytestmark = pytest.mark.legacy_peer
GRACE = 30.0


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if int(text.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def echo_as(client: httpx.Client, url: str, name: str) -> dict:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": name}, "_meta": meta}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo", "Accept": "application/json"}
    return client.post(url, json=body, headers=headers).json()


def test_three_identities_leave_at_most_one_child() -> None:
    port = peers.free_port()
    server = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "everything_server.py")]
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning", "--", *server]
    url = f"http://127.0.0.1:{port}/mcp"
    with peers.running(cmd, port) as proc, httpx.Client(timeout=60) as client:
        seen = []
        for name in ("first", "second", "third"):
            answer = echo_as(client, url, name)
            assert "result" in answer, answer
            seen.append(len(children(proc.pid)))
        assert seen == [1, 2, 3]  # the probe's child is the first identity's; one more per new identity
        left = time.monotonic()
        while len(children(proc.pid)) > 1 and time.monotonic() - left < 1.5 * GRACE + 10:
            time.sleep(0.5)
        assert len(children(proc.pid)) <= 1
        assert "result" in echo_as(client, url, "third")  # the warm child still serves

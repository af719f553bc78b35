"""Issue #33 item 8, the bridge ends the listens it serves with their completion result (2026-07-28 schema
``SubscriptionsListenResult``, the erratum to basic/patterns/subscriptions.mdx §Graceful Closure): a bridge told to
stop (SIGTERM) writes it on every open ``subscriptions/listen`` stream before it closes, whether the listen is
translated from a 2025 server (direction A) or relayed to a 2026 one. Before, uvicorn cut the streams after its
grace period with no response (an abrupt drop to the client) and logged a traceback. Real processes; the frame is
checked against the 2026 schema copy."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import peers
import spec

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "listen-test", "version": "1"}}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json",
           "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen"}
UPSTREAMS = {
    "2025 upstream": lambda: [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "everything_server.py"), "stdio"],
    "2026 upstream": lambda: [peers.MODERN_PYTHON, str(peers.SAMPLES / "modern" / "everything_server.py"), "stdio",
                              "--modern-only"],
}


def fleet_cmd(tmp: Path, port: int, upstream: list[str]) -> list[str]:
    config = tmp / "fleet.toml"
    config.write_text(f"[servers.one]\ncommand = {json.dumps(upstream[0])}\nargs = {json.dumps(upstream[1:])}\n")
    return [*peers.bridge_cmd(), "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}", "--log-level", "warning"]


@pytest.fixture(params=["single", "fleet"])
def mode(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(params=list(UPSTREAMS))
def bridge(request: pytest.FixtureRequest, mode: str, tmp_path: Path) -> Iterator[tuple[subprocess.Popen, str, Path]]:
    port = peers.free_port()
    upstream = UPSTREAMS[request.param]()
    if mode == "single":
        cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--log-level", "warning", "--", *upstream]
        url = f"http://127.0.0.1:{port}/mcp"
    else:
        cmd, url = fleet_cmd(tmp_path, port, upstream), f"http://127.0.0.1:{port}/servers/one/mcp"
    errors = tmp_path / "stderr.txt"
    with errors.open("wb") as sink:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=sink)
        try:
            peers.wait_port(port, proc)
            yield proc, url, errors
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(30)


@pytest.mark.legacy_peer
def test_a_stopping_bridge_completes_every_listen(bridge: tuple[subprocess.Popen, str, Path]) -> None:
    proc, url, stderr = bridge
    frames = []
    body = {"jsonrpc": "2.0", "id": "L1", "method": "subscriptions/listen",
            "params": {"_meta": META, "notifications": {"toolsListChanged": True}}}
    with httpx.stream("POST", url, json=body, headers=HEADERS, timeout=httpx.Timeout(120, connect=60)) as resp:
        assert resp.status_code == 200
        for line in resp.iter_lines():
            if not line.startswith("data:"):
                continue
            frames.append(json.loads(line[5:]))
            if len(frames) == 1:  # acknowledged: the listen is open; now the bridge is told to stop
                assert frames[0]["method"] == "notifications/subscriptions/acknowledged"
                proc.send_signal(signal.SIGTERM)
    # the stream ENDED (no RemoteProtocolError: it was not cut), and its last frame is the completion
    (done,) = frames[1:]
    spec.modern("SubscriptionsListenResultResponse", done)
    assert done == {"jsonrpc": "2.0", "id": "L1",
                    "result": {"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": "L1"}}}
    proc.wait(60)
    assert "timeout graceful shutdown exceeded" not in stderr.read_text()


@pytest.mark.legacy_peer
def test_a_server_removed_by_a_reload_completes_its_listens(tmp_path: Path) -> None:
    """Fleet mode: ``one`` leaves the config (SIGHUP reload) while a listen is open on it: the listen ends with its
    completion (before: the upstream's close reached the client as an error)."""
    port = peers.free_port()
    modern = UPSTREAMS["2026 upstream"]()
    cmd = fleet_cmd(tmp_path, port, modern)
    config = tmp_path / "fleet.toml"
    with peers.running(cmd, port) as proc:
        frames = []
        body = {"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
                "params": {"_meta": META, "notifications": {"toolsListChanged": True}}}
        url = f"http://127.0.0.1:{port}/servers/one/mcp"
        with httpx.stream("POST", url, json=body, headers=HEADERS, timeout=httpx.Timeout(120, connect=60)) as resp:
            for line in resp.iter_lines():
                if line.startswith("data:"):
                    frames.append(json.loads(line[5:]))
                    if len(frames) == 1:
                        config.write_text(f"[servers.two]\ncommand = {json.dumps(modern[0])}\nargs = {json.dumps(modern[1:])}\n")
                        proc.send_signal(signal.SIGHUP)
        (done,) = frames[1:]
        spec.modern("SubscriptionsListenResultResponse", done)
        assert done["result"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": 9}


@pytest.mark.legacy_peer
@pytest.mark.parametrize("which", list(UPSTREAMS))
def test_a_stopping_stdio_bridge_completes_the_listens_of_its_2026_client(which: str) -> None:
    """The stdio front: SIGTERM writes each open listen's completion on stdout, then the process ends as it did
    before (by the signal)."""
    cmd = [*peers.bridge_cmd(), "serve", "--stdio", "--log-level", "warning", "--", *UPSTREAMS[which]()]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        body = {"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen",
                "params": {"_meta": META, "notifications": {"toolsListChanged": True}}}
        proc.stdin.write((json.dumps(body) + "\n").encode())
        proc.stdin.flush()
        ack = json.loads(proc.stdout.readline())
        assert ack["method"] == "notifications/subscriptions/acknowledged", ack
        proc.send_signal(signal.SIGTERM)
        done = json.loads(proc.stdout.readline())
        spec.modern("SubscriptionsListenResultResponse", done)
        assert done["id"] == 5 and done["result"]["_meta"] == {"io.modelcontextprotocol/subscriptionId": 5}
        assert proc.wait(60) == -signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)

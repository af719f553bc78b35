"""Tasks, direction B, with real peers: mcp 1.29's experimental tasks client (samples/clients/
legacy_tasks_client.py) runs tasks through the bridge's 2025 front on a FastMCP 4 + fastmcp-tasks server
(the 2026 tasks extension) over stdio and Streamable HTTP, and -- directions B and A composed -- on
mcp 1.29's own tasks server."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator

import httpx
import pytest

import peers
import spec
from pids import kill_descendant


def modern_tasks_server(*args: str) -> list[str]:
    return [peers.tasks_peer_python(), str(peers.SAMPLES / "modern" / "tasks_server.py"), *args]


def legacy_tasks_server(*args: str) -> list[str]:
    return [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "tasks_server.py"), *args]


@pytest.fixture(params=["modern-stdio", "modern-http", "legacy-stdio"])
def bridge(request: pytest.FixtureRequest) -> Iterator[str]:
    port = peers.free_port()
    # The upstream era is pinned: an era probe of a slow-starting stdio child under load could time out
    # and misclassify it (the probe is not what these tests are about).
    era = "2025-11-25" if request.param.startswith("legacy") else "2026-07-28"
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--front-era", "2025-11-25", "--log-level", "warning",
           "--upstream-era", era]
    if request.param == "modern-http":
        up_port = peers.free_port()
        with peers.running(modern_tasks_server("http", "--port", str(up_port)), up_port), \
                peers.running([*cmd, "--upstream", f"http://127.0.0.1:{up_port}/mcp"], port):
            yield f"http://127.0.0.1:{port}/mcp"
        return
    server = modern_tasks_server() if request.param == "modern-stdio" else legacy_tasks_server()
    with peers.running([*cmd, "--", *server], port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.mark.legacy_peer
def test_legacy_tasks_client_flows(bridge: str) -> None:
    proc = subprocess.run([peers.legacy_python(), str(peers.SAMPLES / "clients" / "legacy_tasks_client.py"), bridge],
                          capture_output=True, text=True, timeout=240)
    report = json.loads(proc.stdout)
    assert report["ok"], (report["error"], proc.stderr[-3000:])
    steps = report["steps"]
    assert steps["capabilities"] == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    assert steps["taskSupport"]["slow"] == "optional"
    # create, tasks/result blocks and returns the result (with the related-task _meta), status completed
    assert steps["slow"]["text"] == ["slow: 3 steps done"] and steps["slow"]["status"] == "completed"
    assert steps["slow"]["created"] == "working" and steps["slow"]["relatedTask"]["taskId"]
    # mid-task elicitation reaches the client's callback, tagged with the task; the answer completes it
    assert steps["confirm"] == {"text": ["deleted a.txt"], "asked": ["Delete a.txt?"],
                                "relatedTask": [steps["confirm"]["relatedTask"][0]]}
    assert steps["confirm"]["relatedTask"][0]["taskId"]
    # a tool error is a failed task for a 2025 client, and tasks/result still returns the tool result
    assert steps["fail"] == {"isError": True, "status": "failed"}
    # cancel answers the cancelled Task; cancelling a terminal task is -32602
    assert steps["cancel"] == {"cancelResult": "cancelled", "status": "cancelled", "again": -32602}
    assert steps["list"] == ["cancelled", "completed", "completed", "failed"]
    assert steps["guessed"] == -32602
    # status notifications reached the session
    assert {"completed", "input_required"} <= set(steps["statusNotifications"])


def _post(http: httpx.Client, url: str, msg: dict, session: str | None) -> tuple[dict, httpx.Response]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}
    if session:
        headers["Mcp-Session-Id"] = session
    resp = http.post(url, content=json.dumps(msg), headers=headers)
    if resp.headers.get("content-type", "").startswith("text/event-stream"):
        frames = [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return next(f for f in frames if f.get("id") == msg.get("id")), resp
    return (resp.json() if resp.content else {}), resp


@pytest.mark.legacy_peer
def test_a_restarted_2026_upstream_child_fails_the_2025_clients_live_task() -> None:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--front-era", "2025-11-25", "--log-level", "warning",
           "--upstream-era", "2026-07-28", "--", *modern_tasks_server()]
    url = f"http://127.0.0.1:{port}/mcp"
    with peers.running(cmd, port), httpx.Client(timeout=60) as http:
        init, resp = _post(http, url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}, None)
        spec.legacy("InitializeResult", init["result"])
        session = resp.headers["mcp-session-id"]
        _post(http, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        created, _ = _post(http, url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "slow", "arguments": {"steps": 1000, "step_ms": 100}, "task": {"ttl": 60000}}}, session)
        spec.legacy("CreateTaskResult", created["result"])
        task_id = created["result"]["task"]["taskId"]
        pid = http.get(url.replace("/mcp", "/healthz")).json()["upstream"]["pid"]
        assert kill_descendant(pid), f"upstream pid {pid} is not a child of this test run"
        deadline = time.monotonic() + 60
        rid = 100
        while time.monotonic() < deadline:
            rid += 1
            got, _ = _post(http, url, {"jsonrpc": "2.0", "id": rid, "method": "tasks/get", "params": {"taskId": task_id}}, session)
            if "result" in got and got["result"]["status"] in ("failed", "completed", "cancelled"):
                break
            time.sleep(0.2)  # the client's poll cadence
        assert "result" in got, got
        spec.legacy("GetTaskResult", got["result"])
        assert got["result"]["status"] == "failed"
        assert got["result"]["statusMessage"].startswith("Upstream task lost")
        result, _ = _post(http, url, {"jsonrpc": "2.0", "id": 4, "method": "tasks/result", "params": {"taskId": task_id}}, session)
        assert result["error"]["code"] == -32603 and result["error"]["message"].startswith("Upstream task lost")

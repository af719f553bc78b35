"""Task caps with real peers. Direction A: a 2026 client runs tasks through the bridge on mcp 1.29's experimental
tasks server over stdio, with small caps. Past a cap the caller gets the named limit error (-32000, ``data.limit``,
HTTP 503); a task session with no unfinished task is closed to make room for another caller's, a busy one never is;
``/healthz`` counts both. Direction B: a 2025 client on a FastMCP 4 + fastmcp-tasks server meets the same cap."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from test_tasks_a import Client2026, tasks_server
from test_tasks_b import _post, modern_tasks_server

import peers
import spec

FINAL = ("completed", "failed", "cancelled")
LONG = {"steps": 1000, "step_ms": 100}


@pytest.fixture(scope="module")
def bridge() -> Iterator[str]:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--front-era", "2026-07-28", "--log-level",
           "warning", "--upstream-era", "2025-11-25", "--max-tasks-per-principal", "2", "--max-task-sessions", "1"]
    with peers.running([*cmd, "--", *tasks_server()], port):
        yield f"http://127.0.0.1:{port}/mcp"


def refused(client: Client2026, limit: str) -> None:
    answer = client.send("tools/call", {"name": "slow", "arguments": {"steps": 1, "step_ms": 1}})
    spec.modern("JSONRPCErrorResponse", answer)
    assert answer["error"]["code"] == -32000 and answer["error"]["data"] == {"limit": limit}, answer


def health(bridge: str) -> dict:
    return httpx.get(bridge.replace("/mcp", "/healthz")).json()["upstream"]


@pytest.mark.legacy_peer
def test_task_caps_are_named_and_an_idle_task_session_makes_room(bridge: str) -> None:
    alice, bob = Client2026(bridge), Client2026(bridge, auth="Bearer bob")
    first, second = alice.create("slow", LONG), alice.create("slow", LONG)
    refused(alice, "tasks_per_principal")
    raw = httpx.post(bridge, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"steps": 1, "step_ms": 1}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": alice.caps,
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}},
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
                 "Mcp-Method": "tools/call", "Mcp-Name": "slow", "Authorization": alice.auth})
    assert raw.status_code == 503
    refused(bob, "task_sessions")  # alice's only task session carries her unfinished tasks: never taken from her
    for task in (first, second):
        alice.result("tasks/cancel", {"taskId": task["taskId"]})
        assert alice.poll(task["taskId"], FINAL)["status"] == "cancelled"
    time.sleep(1.2)  # a session just used is not closed for room (TaskLimits.min_idle_ms)
    third = bob.create("slow", {"steps": 1, "step_ms": 1})
    assert bob.poll(third["taskId"], FINAL)["status"] == "completed"
    assert alice.get(first["taskId"])["status"] == "cancelled"  # her finished tasks outlive her closed session
    limits = health(bridge)["taskLimits"]
    assert limits["refused"] == {"tasks_per_principal": 2, "task_sessions": 1}, limits
    assert limits["sessionsClosed"] == {"room": 1}, limits
    assert len(health(bridge)["taskChannels"]) == 1


@pytest.mark.legacy_peer
def test_a_2025_client_meets_the_unfinished_task_cap_by_name() -> None:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--front-era", "2025-11-25", "--log-level",
           "warning", "--upstream-era", "2026-07-28", "--max-tasks-per-principal", "1", "--", *modern_tasks_server()]
    url = f"http://127.0.0.1:{port}/mcp"
    with peers.running(cmd, port), httpx.Client(timeout=60) as http:
        _, resp = _post(http, url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}, None)
        session = resp.headers["mcp-session-id"]
        _post(http, url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)

        def create(rid: int) -> dict:
            answer, _ = _post(http, url, {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {
                "name": "slow", "arguments": LONG, "task": {"ttl": 60000}}}, session)
            return answer

        first = create(2)["result"]["task"]["taskId"]
        refusal = create(3)
        spec.legacy("JSONRPCErrorResponse", refusal)
        assert refusal["error"]["code"] == -32000 and refusal["error"]["data"] == {"limit": "tasks_per_principal"}
        cancelled, _ = _post(http, url, {"jsonrpc": "2.0", "id": 4, "method": "tasks/cancel", "params": {"taskId": first}},
                             session)
        assert cancelled["result"]["status"] == "cancelled", cancelled
        again = create(5)  # a finished task no longer counts
        spec.legacy("CreateTaskResult", again["result"])
        _post(http, url, {"jsonrpc": "2.0", "id": 6, "method": "tasks/cancel",
                          "params": {"taskId": again["result"]["task"]["taskId"]}}, session)
        assert http.get(url.replace("/mcp", "/healthz")).json()["upstream"]["taskLimits"]["refused"] == {
            "tasks_per_principal": 1}

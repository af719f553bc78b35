"""Tasks, direction A, with real peers: a 2026-07-28 client (raw frames, each validated against the 2026
schema and the tasks extension schema) runs tasks through the bridge on mcp 1.29's experimental tasks
server (samples/legacy/tasks_server.py), over a stdio and a Streamable HTTP upstream."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import peers
import spec
from pids import kill_descendant

EXT = "io.modelcontextprotocol/tasks"
CAPS = {"elicitation": {"form": {}}, "extensions": {EXT: {}}}
POLL_DEADLINE_S = 60.0
_ids = itertools.count(1)


def tasks_server(*args: str) -> list[str]:
    return [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "tasks_server.py"), *args]


@pytest.fixture(scope="module", params=["stdio", "http"])
def bridge(request: pytest.FixtureRequest) -> Iterator[str]:
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--front-era", "2026-07-28", "--log-level", "warning",
           "--upstream-era", "2025-11-25"]
    if request.param == "stdio":
        with peers.running([*cmd, "--", *tasks_server()], port):
            yield f"http://127.0.0.1:{port}/mcp"
        return
    up_port = peers.free_port()
    with peers.running(tasks_server("http", "--port", str(up_port)), up_port), \
            peers.running([*cmd, "--upstream", f"http://127.0.0.1:{up_port}/mcp"], port):
        yield f"http://127.0.0.1:{port}/mcp"


class Client2026:
    def __init__(self, url: str, auth: str = "Bearer alice", caps: dict[str, Any] | None = None) -> None:
        self.url = url
        self.auth = auth
        self.caps = CAPS if caps is None else caps
        self.http = httpx.Client(timeout=60)

    def send(self, method: str, params: dict[str, Any] | None = None, caps: dict[str, Any] | None = None) -> dict[str, Any]:
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": self.caps if caps is None else caps,
                "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1"}}
        msg = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": {**(params or {}), "_meta": meta}}
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, "Authorization": self.auth}
        name = (params or {}).get("taskId") or (params or {}).get("name")
        if name:
            headers["Mcp-Name"] = name
        resp = self.http.post(self.url, content=json.dumps(msg), headers=headers)
        if resp.headers.get("content-type", "").startswith("text/event-stream"):
            frames = [json.loads(line[5:]) for line in resp.text.splitlines() if line.startswith("data:")]
            return next(f for f in frames if "id" in f and ("result" in f or "error" in f))
        return resp.json()

    def result(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        resp = self.send(method, params, **kw)
        assert "result" in resp, resp
        return resp["result"]

    def create(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.result("tools/call", {"name": name, "arguments": arguments})
        spec.ext_tasks("CreateTaskResult", result)
        assert result["resultType"] == "task" and result["status"] == "working"
        return result

    def get(self, task_id: str) -> dict[str, Any]:
        result = self.result("tasks/get", {"taskId": task_id})
        spec.ext_tasks("GetTaskResult", result)
        return result

    def poll(self, task_id: str, until: tuple[str, ...]) -> dict[str, Any]:
        deadline = time.monotonic() + POLL_DEADLINE_S
        while time.monotonic() < deadline:
            task = self.get(task_id)
            if task["status"] in until:
                return task
            time.sleep(min(task.get("pollIntervalMs", 100), 100) / 1000)  # the client's own poll cadence
        raise AssertionError(f"task {task_id} never reached {until}")


@pytest.mark.legacy_peer
def test_task_runs_to_completion_with_inline_result(bridge: str) -> None:
    client = Client2026(bridge)
    discover = client.result("server/discover")
    spec.modern("DiscoverResult", discover)
    assert discover["capabilities"]["extensions"][EXT] == {}
    created = client.create("slow", {"steps": 3, "step_ms": 50})
    done = client.poll(created["taskId"], ("completed", "failed", "cancelled"))
    assert done["status"] == "completed"
    assert done["result"]["content"] == [{"type": "text", "text": "slow: 3 steps done"}]
    spec.modern("CallToolResult", {**done["result"], "resultType": "complete"})


@pytest.mark.legacy_peer
def test_cancel_mid_task(bridge: str) -> None:
    client = Client2026(bridge)
    created = client.create("slow", {"steps": 1000, "step_ms": 100})
    ack = client.result("tasks/cancel", {"taskId": created["taskId"]})
    spec.ext_tasks("CancelTaskResult", ack)
    assert ack == {"resultType": "complete"}
    assert client.poll(created["taskId"], ("cancelled", "completed", "failed"))["status"] == "cancelled"


@pytest.mark.legacy_peer
def test_input_mid_task_through_tasks_update(bridge: str) -> None:
    client = Client2026(bridge)
    created = client.create("confirm", {"filename": "a.txt"})
    waiting = client.poll(created["taskId"], ("input_required",))
    [(key, ask)] = waiting["inputRequests"].items()
    assert ask["method"] == "elicitation/create" and ask["params"]["message"] == "Delete a.txt?"
    update = {"taskId": created["taskId"], "inputResponses": {key: {"action": "accept", "content": {"confirm": True}}}}
    spec.ext_tasks("UpdateTaskRequest", {"jsonrpc": "2.0", "id": 0, "method": "tasks/update",
                                         "params": {**update, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
    assert client.result("tasks/update", update) == {"resultType": "complete"}
    done = client.poll(created["taskId"], ("completed", "failed", "cancelled"))
    assert done["result"]["content"] == [{"type": "text", "text": "deleted a.txt"}]


@pytest.mark.legacy_peer
def test_tool_error_is_completed_and_a_crash_is_failed(bridge: str) -> None:
    client = Client2026(bridge)
    failed_tool = client.poll(client.create("fail", {})["taskId"], ("completed", "failed"))
    assert failed_tool["status"] == "completed" and failed_tool["result"]["isError"] is True
    crashed = client.poll(client.create("crash", {})["taskId"], ("completed", "failed"))
    assert crashed["status"] == "failed" and crashed["error"]["code"] == -32603
    assert "crashed on purpose" in crashed["error"]["message"]


@pytest.mark.legacy_peer
def test_task_ids_are_bound_to_the_caller_and_the_extension_is_required(bridge: str) -> None:
    alice = Client2026(bridge)
    created = alice.create("slow", {"steps": 1, "step_ms": 10})
    for intruder, task_id in ((Client2026(bridge, auth="Bearer mallory"), created["taskId"]), (alice, "guessed-id")):
        resp = intruder.send("tasks/get", {"taskId": task_id})
        assert resp["error"]["code"] == -32602, resp
    mismatch = alice.http.post(alice.url, headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tasks/get", "Mcp-Name": "another-task", "Authorization": alice.auth},
        content=json.dumps({"jsonrpc": "2.0", "id": 99, "method": "tasks/get", "params": {"taskId": created["taskId"], "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": CAPS}}}))
    assert mismatch.status_code == 400 and mismatch.json()["error"]["code"] == -32020, "ext §Routing Headers: Mcp-Name = taskId"
    undeclared = Client2026(bridge, caps={"elicitation": {"form": {}}})
    for method, params in (("tasks/get", {"taskId": created["taskId"]}), ("tools/call", {"name": "confirm", "arguments": {}})):
        resp = undeclared.send(method, params)
        spec.modern("MissingRequiredClientCapabilityError", resp)
        assert resp["error"]["data"]["requiredCapabilities"] == {"extensions": {EXT: {}}}
    # An optional task tool without the extension runs directly; a plain tool never becomes a task.
    direct = undeclared.result("tools/call", {"name": "slow", "arguments": {"steps": 1, "step_ms": 1}})
    assert direct["resultType"] == "complete" and direct["content"][0]["text"] == "slow: 1 steps done"
    echo = alice.result("tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    assert echo["resultType"] == "complete" and echo["content"][0]["text"] == "echo: hi"


@pytest.mark.legacy_peer
def test_status_notifications_reach_listen_subscribers_of_those_tasks(bridge: str) -> None:
    client = Client2026(bridge)
    # A status notification tells what changed after the listen began (nothing is replayed to a late subscriber), so
    # the task must outlast opening the listen: 4 steps of 1 s, not 150 ms (a loaded machine may take that long).
    created = client.create("slow", {"steps": 4, "step_ms": 1000})
    frames: list[dict[str, Any]] = []
    finished = threading.Event()

    def listen() -> None:
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": CAPS}
        msg = {"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
               "params": {"notifications": {"taskIds": [created["taskId"], "not-mine"]}, "_meta": meta}}
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen", "Authorization": client.auth}
        with httpx.stream("POST", bridge, content=json.dumps(msg), headers=headers, timeout=30) as resp:
            for line in resp.iter_lines():
                if not line.startswith("data:"):
                    continue
                frames.append(json.loads(line[5:]))
                params = frames[-1].get("params") or {}
                if frames[-1].get("method") == "notifications/tasks" and params.get("status") in ("completed", "failed"):
                    finished.set()
                    return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    assert finished.wait(POLL_DEADLINE_S), frames
    ack = frames[0]
    spec.modern("SubscriptionsAcknowledgedNotification", ack)
    assert ack["params"]["notifications"]["taskIds"] == [created["taskId"]], "a foreign/unknown id is not acknowledged"
    notes = [f for f in frames if f.get("method") == "notifications/tasks"]
    for note in notes:
        spec.ext_tasks("TaskStatusNotification", note)
        assert note["params"]["taskId"] == created["taskId"]
        assert note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen-1"
    assert notes[-1]["params"]["result"]["content"][0]["text"] == "slow: 4 steps done"


@pytest.mark.legacy_peer
def test_a_restarted_upstream_child_fails_its_live_tasks_with_the_documented_error(bridge: str) -> None:
    client = Client2026(bridge)
    created = client.create("slow", {"steps": 1000, "step_ms": 100})
    health = httpx.get(bridge.replace("/mcp", "/healthz")).json()["upstream"]
    if health["taskChannels"][0].get("transport") != "stdio":
        client.result("tasks/cancel", {"taskId": created["taskId"]})
        pytest.skip("the restart case is a stdio upstream's")
    pids = {c["pid"] for c in health["taskChannels"] if c.get("pid")}
    for pid in pids:
        assert kill_descendant(pid), f"task channel pid {pid} is not a child of this test run"
    lost = client.poll(created["taskId"], ("failed", "completed", "cancelled"))
    assert lost["status"] == "failed" and lost["error"]["code"] == -32603
    assert lost["error"]["message"].startswith("Upstream task lost")
    again = client.create("slow", {"steps": 1, "step_ms": 1})
    try:
        done = client.poll(again["taskId"], ("completed", "failed"))
    except AssertionError as exc:
        health = httpx.get(bridge.replace("/mcp", "/healthz")).json()["upstream"]
        raise AssertionError(f"{exc}; last {client.get(again['taskId'])}; health {health}") from None
    assert done["status"] == "completed", done

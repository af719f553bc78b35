"""#11/#12 tasks scaled out, real parts: three bridge instances sharing a redis-server behind HAProxy
(round-robin, no stickiness) in front of mcp 1.29's experimental tasks server. A task's requests land on
any instance: the instance holding the upstream task answers them (forwarded), and when it is gone the
shared record answers: ``failed`` with -32603 "Upstream task lost" (the documented choice, ext tasks.mdx
§Task Execution Errors)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
import scale_peers
from scale_peers import LegacySession

import peers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from test_tasks_a import CAPS, Client2026  # noqa: E402

pytestmark = [pytest.mark.legacy_peer]

FINAL = ("completed", "failed", "cancelled")


@pytest.fixture(scope="module")
def cluster() -> Iterator[scale_peers.Cluster]:
    port = peers.free_port()
    server = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "tasks_server.py"), "http", "--port", str(port)]
    with peers.running(server, port), scale_peers.redis_server() as store, \
            scale_peers.cluster(store, ["--upstream", f"http://127.0.0.1:{port}/mcp", "--upstream-era", "2025-11-25"], 3) as c:
        yield c


def test_task_requests_land_anywhere(cluster: scale_peers.Cluster) -> None:
    client = Client2026(cluster.url)
    created = client.create("slow", {"steps": 3, "step_ms": 50})
    done, moved = cluster.counted("forwarded", lambda: client.poll(created["taskId"], FINAL))
    assert done["status"] == "completed" and done["result"]["content"] == [{"type": "text", "text": "slow: 3 steps done"}], done
    # Round-robin: two polls in three land away from the owner and are forwarded to it.
    assert sum(m["out"] for m in moved.values()) >= 1 and sum(m["in"] for m in moved.values()) >= 1, moved
    other = client.create("slow", {"steps": 1000, "step_ms": 100})
    for _ in range(3):  # whichever instance takes the cancel, it reaches the owner
        assert client.result("tasks/cancel", {"taskId": other["taskId"]}) == {"resultType": "complete"}
    assert client.poll(other["taskId"], FINAL)["status"] == "cancelled"
    # Another principal learns nothing, wherever it asks (the owner binding is the owner's).
    stranger = Client2026(cluster.url, auth="Bearer mallory")
    for _ in range(3):
        assert stranger.send("tasks/get", {"taskId": created["taskId"]})["error"]["code"] == -32602


def test_owner_gone_task_is_failed_lost_everywhere(cluster: scale_peers.Cluster) -> None:
    a, b, c = cluster.instances
    client = Client2026(a.url)
    created = client.create("slow", {"steps": 1000, "step_ms": 100})
    task_id = created["taskId"]
    stored = redis.Redis.from_url(cluster.store)
    deadline = time.monotonic() + 120  # a hang guard: the write-behind may lag on a loaded machine
    while not stored.exists(f"mcp-bridge:cache:tasks:{task_id}"):  # the shared copy is written behind (bounded poll)
        assert time.monotonic() < deadline, "the task record never reached the store"
        time.sleep(0.02)
    try:
        a.stop(kill=True)
        for inst in (b, c, b):
            task = Client2026(inst.url).get(task_id)
            assert task["status"] == "failed", task
            assert task["error"]["code"] == -32603 and task["error"]["message"].startswith("Upstream task lost"), task
        assert Client2026(c.url).result("tasks/cancel", {"taskId": task_id}) == {"resultType": "complete"}
        assert Client2026(c.url, auth="Bearer mallory").send("tasks/get", {"taskId": task_id})["error"]["code"] == -32602
    finally:
        a.start()


def test_legacy_tasks_client_through_the_balancer(cluster: scale_peers.Cluster) -> None:
    """mcp 1.29's tasks client (2025-11-25 tasks over the session, directions B and A composed): its session's
    requests spread over the instances and reach the one holding the session."""
    proc = subprocess.run([peers.legacy_python(), str(peers.SAMPLES / "clients" / "legacy_tasks_client.py"), cluster.url],
                          capture_output=True, text=True, timeout=240)
    report = json.loads(proc.stdout)
    assert report["ok"], (report["error"], proc.stderr[-3000:])
    assert report["steps"]["slow"]["text"] == ["slow: 3 steps done"] and report["steps"]["slow"]["status"] == "completed"


# --- issue #33 item 9: a principal's tasks are one list across the instances ---------------------------------

class ListerSession(LegacySession):
    """A 2025 session of the principal "lister" (its own tasks only: the other tests' are another principal's)."""

    def headers(self) -> dict[str, str]:
        return {**super().headers(), "authorization": "Bearer lister"}


def create_task(session: LegacySession, steps: int) -> str:
    created = session.request("tools/call", {"name": "slow", "arguments": {"steps": steps, "step_ms": 100},
                                             "task": {"ttl": 60000}})
    return created["result"]["task"]["taskId"]


def test_tasks_list_sees_every_instance(cluster: scale_peers.Cluster) -> None:
    """Each 2025 session is served by the instance that ran its ``initialize``; tasks created in sessions held by
    different instances are all in the principal's ``tasks/list``, wherever it is asked (2025-11-25
    basic/utilities/tasks.mdx §Listing Tasks: the requestor's tasks)."""
    sessions = [ListerSession(inst.url) for inst in cluster.instances]
    for s in sessions:
        s.open()
    created = {create_task(s, 1000) for s in sessions}  # one long task held by each instance
    deadline = time.monotonic() + 60  # (a hang guard: each record reaches the store written behind, bounded poll)
    while {t["taskId"] for t in sessions[0].request("tasks/list")["result"]["tasks"]} != created:
        assert time.monotonic() < deadline, "the tasks of the other instances never showed in the list"
        time.sleep(0.05)
    for s, asked in zip(sessions, [cluster.instances[1].url, cluster.url, cluster.instances[0].url], strict=True):
        listed = s.request("tasks/list", url=asked)["result"]["tasks"]
        assert {t["taskId"] for t in listed} == created, listed
        assert all(t["status"] == "working" for t in listed), listed
    for s, task_id in zip(sessions, sorted(created), strict=True):
        s.request("tasks/cancel", {"taskId": task_id})


def test_listen_with_task_ids_of_a_task_held_elsewhere(cluster: scale_peers.Cluster) -> None:
    """A 2026 client's listen with ``taskIds`` reaching another instance than the one holding the task is acknowledged
    with the task and gets its status notifications (ext tasks.mdx §Task Status Notifications)."""
    a, b, _ = cluster.instances
    client = Client2026(a.url, auth="Bearer listener")
    created = client.create("slow", {"steps": 4, "step_ms": 1000})  # outlasts opening the listen on a loaded machine
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": CAPS}
    msg = {"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
           "params": {"notifications": {"taskIds": [created["taskId"]]}, "_meta": meta}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen", "Authorization": client.auth}
    frames: list[dict] = []
    deadline = time.monotonic() + 60  # (a hang guard: the task ends within seconds)
    with httpx.stream("POST", b.url, content=json.dumps(msg), headers=headers, timeout=60) as resp:
        for line in resp.iter_lines():
            if time.monotonic() > deadline:
                break
            if line.startswith("data:") and line[5:].strip():
                frames.append(json.loads(line[5:]))
                if (frames[-1].get("params") or {}).get("status") in FINAL:
                    break
    assert frames[0]["params"]["notifications"]["taskIds"] == [created["taskId"]], frames[0]
    last = frames[-1]
    assert last["method"] == "notifications/tasks" and last["params"]["taskId"] == created["taskId"], frames
    assert last["params"]["status"] == "completed", last
    assert last["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "listen-1"

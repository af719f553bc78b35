"""#11 failures with real parts: an instance SIGKILLed or restarted with the same key, the store going away.
Requests go to chosen instances (not through the balancer) so each case is deterministic."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
import scale_peers
from scale_peers import LegacySession, modern_tool_call

import peers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from direction_b_peers import MODERN_SERVER  # noqa: E402

pytestmark = [pytest.mark.legacy_peer]

NAME = {"action": "accept", "content": {"name": "Ada"}}
COLOR = {"action": "accept", "content": {"color": "teal"}}


@pytest.fixture(scope="module")
def legacy_upstream() -> Iterator[list[str]]:
    port = peers.free_port()
    with peers.running([peers.legacy_python(), str(peers.SAMPLES / "legacy" / "mrtr_server.py"), "http", "--port", str(port)], port):
        yield ["--upstream", f"http://127.0.0.1:{port}/mcp", "--front-era", "2026-07-28"]


@pytest.fixture(scope="module")
def modern_upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    script = tmp_path_factory.mktemp("scale-fail") / "server.py"
    script.write_text(MODERN_SERVER)
    port = peers.free_port()
    with peers.running([peers.MODERN_PYTHON, str(script), "http", str(port)], port):
        yield ["--upstream", f"http://127.0.0.1:{port}/mcp", "--upstream-era", "2026-07-28", "--front-era", "2025-11-25"]


@pytest.fixture
def store() -> Iterator[str]:
    with scale_peers.redis_server() as url:
        yield url


def first_round(url: str) -> tuple[str, str]:
    r1 = modern_tool_call(url, "two_questions", 1)
    result = r1["result"]
    assert result["resultType"] == "input_required", r1
    (key,) = result["inputRequests"]
    return key, result["requestState"]


def test_parked_call_on_a_killed_instance_is_lost_promptly(store: str, legacy_upstream: list[str]) -> None:
    with scale_peers.cluster(store, legacy_upstream, 3) as c:
        a, b, _ = c.instances
        key, token = first_round(a.url)
        a.stop(kill=True)
        started = time.monotonic()
        r2 = modern_tool_call(b.url, "two_questions", 2, responses={key: NAME}, state=token, timeout=120)
        elapsed = time.monotonic() - started
        assert r2["error"]["code"] == -32602 and r2["error"]["data"] == {"reason": "lost"}, r2
        print(f"lost answered in {elapsed * 1000:.0f} ms")
        # The survivors carry on.
        key, token = first_round(b.url)
        r2 = modern_tool_call(c.instances[2].url, "two_questions", 3, responses={key: NAME}, state=token)
        (key2,) = r2["result"]["inputRequests"]
        r3 = modern_tool_call(b.url, "two_questions", 4, responses={key2: COLOR}, state=r2["result"]["requestState"])
        assert r3["result"]["content"][0]["text"] == "Ada likes teal"


def test_restart_with_the_same_key(store: str, legacy_upstream: list[str]) -> None:
    with scale_peers.cluster(store, legacy_upstream, 3) as c:
        a, b, _ = c.instances
        key, token = first_round(a.url)
        a.restart()
        # The token is still authentic (same key) but its call died with the old process: -32602 wherever it
        # lands (the other instances forward it to the restarted owner, which no longer holds the call). Each
        # answer is bounded by the request deadline (never a hang); the time taken is reported, not asserted.
        took = {}
        for rid, inst in enumerate((b, a, c.instances[2]), start=2):
            started = time.monotonic()
            r2 = modern_tool_call(inst.url, "two_questions", rid, responses={key: NAME}, state=token, timeout=120)
            took[inst.instance_id] = round((time.monotonic() - started) * 1000)
            assert r2["error"]["code"] == -32602, r2
            assert "integrity" not in r2["error"]["message"], r2
        print(f"requestState of a restarted owner rejected with -32602 in ms: {took}")
        # The restarted instance parks and its parked calls are reached from the others.
        key, token = first_round(a.url)
        r2 = modern_tool_call(b.url, "two_questions", 5, responses={key: NAME}, state=token)
        (key2,) = r2["result"]["inputRequests"]
        r3 = modern_tool_call(c.instances[2].url, "two_questions", 6, responses={key2: COLOR}, state=r2["result"]["requestState"])
        assert r3["result"]["content"][0]["text"] == "Ada likes teal"


def test_store_down_parked_calls_still_complete(legacy_upstream: list[str]) -> None:
    with scale_peers.redis_process() as (store_url, redis), scale_peers.cluster(store_url, legacy_upstream, 2) as c:
        a, b = c.instances
        key, token = first_round(a.url)
        deadline = time.monotonic() + 120  # (a hang guard) b must have heard of a before the store goes
        while "bridge-0" not in httpx.get(f"http://127.0.0.1:{b.port}/healthz", timeout=10).json()["upstream"]["cluster"]["instances"]:
            assert time.monotonic() < deadline, "b never listed a"
            time.sleep(0.1)
        redis.kill()
        redis.wait()
        # The owner needs no store to continue its own parked call ...
        r2 = modern_tool_call(a.url, "two_questions", 2, responses={key: NAME}, state=token)
        assert r2["result"]["resultType"] == "input_required", r2
        (key2,) = r2["result"]["inputRequests"]
        # ... and a retry landing elsewhere still reaches it (the registry as of the last heartbeat).
        r3 = modern_tool_call(b.url, "two_questions", 3, responses={key2: COLOR}, state=r2["result"]["requestState"], timeout=120)
        assert "result" in r3 and r3["result"]["content"][0]["text"] == "Ada likes teal", r3


def owner_of_session(c: scale_peers.Cluster) -> scale_peers.Instance:
    for inst in c.instances:
        if inst.proc is not None and inst.proc.poll() is None:
            health = httpx.get(f"http://127.0.0.1:{inst.port}/healthz", timeout=10).json()
            if health["upstream"]["cluster"]["sessions"]:
                return inst
    raise AssertionError("no instance holds the session")


def test_2025_session_survives_its_instance(store: str, modern_upstream: list[str]) -> None:
    with scale_peers.cluster(store, modern_upstream, 3) as c:
        s = LegacySession(c.url)
        assert s.open()["result"]["protocolVersion"] == "2025-11-25"
        assert "add" in [t["name"] for t in s.request("tools/list")["result"]["tools"]]
        owner = owner_of_session(c)
        owner.stop(kill=True)
        answer = s.request("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})
        assert answer["result"]["content"][0]["text"] == "5", answer
        survivors = c.counters("relayed")
        assert sum(d["adopted"] for d in survivors.values()) == 1, survivors
        # DELETE anywhere ends it everywhere.
        others = [i for i in c.instances if i is not owner]
        assert httpx.delete(others[0].url, headers=s.headers(), timeout=10).status_code == 200
        gone = s.request("tools/list", url=others[1].url)
        assert gone["status"] == 404, gone


def test_2025_session_continues_after_restart_with_the_same_key(store: str, modern_upstream: list[str]) -> None:
    with scale_peers.cluster(store, modern_upstream, 3) as c:
        a, b, _ = c.instances
        s = LegacySession(a.url)
        s.open()
        a.restart()
        answer = s.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}, url=b.url)
        assert answer["result"]["content"][0]["text"] == "2", answer
        answer = s.request("tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}}, url=a.url)
        assert answer["result"]["content"][0]["text"] == "4", answer


def read_events(stream: Iterator[str], method: str, seen: list[tuple[str, dict]]) -> None:
    """Read SSE lines until an event carrying ``method`` arrives (recording every event with its id)."""
    event_id = None
    for line in stream:
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:") and line[5:].strip():
            msg = json.loads(line[5:])
            seen.append((event_id or "", msg))
            if msg.get("method") == method:
                return
    raise AssertionError(f"stream ended before {method}")


def test_get_stream_replays_stored_events_after_its_instance_died(store: str, modern_upstream: list[str]) -> None:
    with scale_peers.cluster(store, modern_upstream, 3) as c:
        a, b, _ = c.instances
        s = LegacySession(a.url)
        s.open()
        assert "result" in s.request("resources/subscribe", {"uri": "memo://readme"})
        seen: list[tuple[str, dict]] = []
        headers = {**s.headers(), "accept": "text/event-stream"}
        with httpx.stream("GET", a.url, headers=headers, timeout=30) as get:
            s.request("tools/call", {"name": "touch", "arguments": {"uri": "memo://readme"}}, url=b.url)
            read_events(get.iter_lines(), "notifications/resources/updated", seen)
        last_id = seen[-1][0]
        # The client is away; one more update reaches the GET stream's buffer (and the store); the instance dies.
        s.request("tools/call", {"name": "add_tool", "arguments": {"name": "late_tool"}}, url=a.url)
        stored = redis.Redis.from_url(store)
        deadline = time.monotonic() + 120  # a hang guard: the write-behind may lag on a loaded machine
        while stored.xlen(f"mcp-bridge:ev:{s.sid}") < 2:  # the update is in the store (bounded poll on the condition)
            assert time.monotonic() < deadline, "the GET-stream event never reached the store"
            time.sleep(0.02)
        a.stop(kill=True)
        replayed: list[tuple[str, dict]] = []
        with httpx.stream("GET", b.url, headers={**headers, "last-event-id": last_id}, timeout=30) as get:
            read_events(get.iter_lines(), "notifications/tools/list_changed", replayed)
        assert [m.get("method") for _, m in replayed] == ["notifications/tools/list_changed"], replayed
        assert replayed[0][0].startswith("g.") and replayed[0][0] != last_id
        assert c.counters("relayed")[b.instance_id]["replayed"] == 1


def test_store_down_2025_session_elsewhere_reaches_its_owner_unknown_ones_named(modern_upstream: list[str]) -> None:
    """With the store down, a 2025 session's request landing on another instance is offered to the instances it
    knows and answered by the one holding the session; a session nobody holds gets the named store error."""
    with scale_peers.redis_process() as (store_url, redis_proc), scale_peers.cluster(store_url, modern_upstream, 2) as c:
        a, b = c.instances
        s = LegacySession(a.url)
        s.open()
        deadline = time.monotonic() + 120  # (a hang guard) b must have heard of a before the store goes
        while "bridge-0" not in httpx.get(f"http://127.0.0.1:{b.port}/healthz", timeout=10).json()["upstream"]["cluster"]["instances"]:
            assert time.monotonic() < deadline, "b never listed a"
            time.sleep(0.1)
        redis_proc.kill()
        redis_proc.wait()
        elsewhere = s.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 1}}, url=b.url)
        assert elsewhere["result"]["content"][0]["text"] == "2", elsewhere
        local = s.request("tools/call", {"name": "add", "arguments": {"a": 2, "b": 2}}, url=a.url)
        assert local["result"]["content"][0]["text"] == "4", local
        stranger = LegacySession(b.url)
        stranger.sid = "0" * 32
        unknown = stranger.request("tools/call", {"name": "add", "arguments": {"a": 3, "b": 3}})
        assert unknown["status"] == 503 and unknown["error"]["code"] == -32603, unknown
        assert store_url in unknown["error"]["message"], unknown

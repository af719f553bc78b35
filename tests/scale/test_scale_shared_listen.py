"""Issue #33 item 9: ONE upstream ``subscriptions/listen`` per share key for a cluster, not one per instance.

Three bridge instances share a real redis-server behind HAProxy, in front of a 2026 server that counts its open
listens (``counting_listen_server.py``). One raw 2025-11-25 session is opened on each instance (same credentials
and client identity: one share key), each with its GET stream and its own resource subscription. Asserted as
outcomes, each within a generous deadline (never a timing figure):

* the upstream sees exactly one listen, and every session receives its own ``resources/updated`` and the
  ``tools/list_changed``, wherever the listen is held;
* the leader instance is SIGKILLed: the others take the listen over (one again) and notifications resume;
* the store is stopped, frozen, then at its ``maxmemory`` (writes refused): each live instance listens itself
  (one per instance, notifications still delivered); when the store returns, one listen again; and after a
  restart that emptied it.
"""

from __future__ import annotations

import json
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import scale_peers
from scale_peers import LegacySession
from test_scale_store_faults import FAULTS, RedisCtl

import peers

SERVER = Path(__file__).with_name("counting_listen_server.py")
DEADLINE = 60.0
"""Seconds within which the cluster settles after a change (it takes a few heartbeats on an idle machine)."""
TOOLS_CHANGED = "notifications/tools/list_changed"
UPDATED = "notifications/resources/updated"


class GetStream:
    """A 2025 session's GET stream, read by a thread into a queue."""

    def __init__(self, session: LegacySession) -> None:
        self.messages: queue.Queue[dict] = queue.Queue()
        self.client = httpx.Client(timeout=httpx.Timeout(30.0, read=None))
        self.session = session
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            with self.client.stream("GET", self.session.url, headers=self.session.headers()) as resp:
                for line in resp.iter_lines():
                    if line.startswith("data:") and line[5:].strip():
                        self.messages.put(json.loads(line[5:]))
        except (httpx.HTTPError, RuntimeError):
            pass

    def wait_for(self, wanted: Callable[[dict], bool], timeout: float = DEADLINE) -> dict:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            assert left > 0, f"no matching notification on the GET stream of {self.session.url}"
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if wanted(msg):
                return msg

    def close(self) -> None:
        self.client.close()


class Rig:
    def __init__(self, ctl: RedisCtl, cluster: scale_peers.Cluster, upstream: str) -> None:
        self.ctl, self.cluster, self.upstream = ctl, cluster, upstream
        self.rid = 1000

    def tool(self, name: str, arguments: dict[str, Any]) -> Any:
        self.rid += 1
        params = {"name": name, "arguments": arguments}
        answer = scale_peers.modern_request(self.upstream, "tools/call", params, self.rid)
        return answer["result"]

    def open_listens(self) -> int:
        result = self.tool("open_listens", {})
        return int(result.get("structuredContent", {}).get("result", result["content"][0]["text"]))

    def listens_status(self) -> dict[str, dict[str, Any]]:
        out = {}
        for inst in self.cluster.instances:
            if inst.proc is not None and inst.proc.poll() is None:
                health = httpx.get(f"http://127.0.0.1:{inst.port}/healthz", timeout=10).json()
                out[inst.instance_id] = health["upstream"]["cluster"].get("listens", {})
        return out

    def settle(self, predicate: Callable[[int, dict[str, dict[str, Any]]], bool], what: str) -> float:
        """Until ``predicate(open listens, listens status per instance)`` holds; the seconds it took. A list change is
        sent on each try, so that the server writes to (and so notices the end of) a listen whose bridge died."""
        start = time.monotonic()
        while True:
            count, status = self.open_listens(), self.listens_status()
            if predicate(count, status):
                return time.monotonic() - start
            assert time.monotonic() - start < DEADLINE, f"{what}: {count} listens, {status}"
            self.tool("tools_changed", {})
            time.sleep(0.5)


@pytest.fixture
def rig() -> Iterator[Rig]:
    port = peers.free_port()
    upstream_url = f"http://127.0.0.1:{port}/mcp"
    upstream = ["--upstream", upstream_url, "--upstream-era", "2026-07-28", "--front-era", "2025-11-25"]
    with tempfile.TemporaryDirectory(prefix="mcp-eras-redis-") as tmp, \
            peers.running([peers.MODERN_PYTHON, str(SERVER), str(port)], port):
        ctl = RedisCtl(tmp)
        ctl.start()
        try:
            with scale_peers.cluster(ctl.url, upstream, 3) as c:
                yield Rig(ctl, c, upstream_url)
        finally:
            ctl.stop()


def leaders(status: dict[str, dict[str, Any]]) -> list[str]:
    return [inst for inst, s in status.items() if s.get("leader")]


def check_delivery(rig: Rig, streams: dict[int, GetStream], tag: str) -> None:
    """Each live session subscribes to a resource of this round (the union grows, wherever the listen is held) and
    gets its update (never one after a drop: no session subscribed to it before), then a tools/list_changed."""
    for i, stream in streams.items():
        session = stream.session
        assert "result" in session.request("resources/subscribe", {"uri": f"memo://s{i}-{tag}"})
    for i in streams:
        rig.tool("touch", {"uri": f"memo://s{i}-{tag}"})
    for i, stream in streams.items():
        uri = f"memo://s{i}-{tag}"
        got = stream.wait_for(lambda m, uri=uri: m.get("method") == UPDATED and m["params"]["uri"] == uri)
        assert got["params"] == {"uri": uri}
        while not stream.messages.empty():
            stream.messages.get_nowait()
    rig.tool("tools_changed", {})
    for stream in streams.values():
        stream.wait_for(lambda m: m.get("method") == TOOLS_CHANGED)


def test_one_upstream_listen_for_three_instances_failover_and_store_fault(rig: Rig) -> None:
    streams: dict[int, GetStream] = {}
    for i, inst in enumerate(rig.cluster.instances):
        session = LegacySession(inst.url)  # opened on this instance: it serves the session and its GET stream
        assert session.open()["result"]["capabilities"]["resources"]["subscribe"] is True
        streams[i] = GetStream(session)
        assert session.request("resources/subscribe", {"uri": f"memo://s{i}"}) == {
            "jsonrpc": "2.0", "id": session.next_id - 1, "result": {}}

    took = rig.settle(lambda n, st: n == 1 and len(leaders(st)) == 1, "one listen for three instances")
    print(f"one listen for three instances after {took:.1f}s")
    check_delivery(rig, streams, "a")
    assert rig.open_listens() == 1

    # the leader dies: another instance takes the lease over and listens for both remaining sessions
    leader = leaders(rig.listens_status())[0]
    dead = next(i for i, inst in enumerate(rig.cluster.instances) if inst.instance_id == leader)
    rig.cluster.instances[dead].stop(kill=True)
    streams.pop(dead).close()
    took = rig.settle(lambda n, st: n == 1 and len(leaders(st)) == 1, "take-over after the leader was killed")
    print(f"listen taken over {took:.1f}s after the leader was killed")
    check_delivery(rig, streams, "b")

    # store faults: each live instance falls back to a listen of its own; then one listen again when it returns
    for name in ("stopped", "frozen", "at maxmemory"):
        begin, end = FAULTS[name]
        begin(rig.ctl)
        try:
            took = rig.settle(lambda n, st: n == len(streams) and not leaders(st), f"fallback with the store {name}")
            print(f"per-instance listens {took:.1f}s after the store {name}")
            check_delivery(rig, streams, f"{name[:3]}-1")
        finally:
            end(rig.ctl)
        took = rig.settle(lambda n, st: n == 1 and len(leaders(st)) == 1, f"one listen after the store {name}")
        print(f"one listen again {took:.1f}s after the store {name} came back")
        check_delivery(rig, streams, f"{name[:3]}-2")
    rig.ctl.restart()  # empty: the leases and wants are gone too
    took = rig.settle(lambda n, st: n == 1 and len(leaders(st)) == 1, "one listen after the store restarted empty")
    print(f"one listen {took:.1f}s after the store restarted empty")
    check_delivery(rig, streams, "empty")
    for stream in streams.values():
        stream.close()

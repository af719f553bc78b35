"""#11 direction B through a real balancer: an mcp 1.29 ClientSession (2025-11-25) opens a session via
HAProxy (round-robin, no stickiness) in front of three bridge instances sharing a real redis-server;
the 2026 upstream is an mcp 2.3.0 server. Lists, calls, a resource subscription with its update and a
list_changed on the GET stream, and MRTR questions answered by POSTs that land on other instances."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import scale_peers

import peers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from direction_b_peers import LEGACY_CLIENT, MODERN_SERVER  # noqa: E402

pytestmark = [pytest.mark.legacy_peer]


@pytest.fixture(scope="module")
def scripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("scale-b")
    (tmp / "server.py").write_text(MODERN_SERVER)
    (tmp / "client.py").write_text(LEGACY_CLIENT)
    return {"server": tmp / "server.py", "client": tmp / "client.py"}


@pytest.fixture(scope="module")
def cluster(scripts: dict[str, Path]) -> Iterator[scale_peers.Cluster]:
    port = peers.free_port()
    upstream = ["--upstream", f"http://127.0.0.1:{port}/mcp", "--upstream-era", "2026-07-28"]
    with peers.running([peers.MODERN_PYTHON, str(scripts["server"]), "http", str(port)], port), scale_peers.redis_server() as store, \
            scale_peers.cluster(store, upstream, 3, "--front-era", "2025-11-25") as c:
        yield c


def run_client(scripts: dict[str, Path], which: str, url: str) -> dict:
    proc = subprocess.run([peers.legacy_python(), str(scripts["client"]), which, url], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)


def test_session_served_by_any_instance(cluster: scale_peers.Cluster, scripts: dict[str, Path]) -> None:
    out, delta = cluster.counted("relayed", lambda: run_client(scripts, "basic,subscriptions,mrtr", cluster.url))
    assert out["add"]["content"][0]["text"] == "5"
    assert "add" in out["tools"] and "ask_name" in out["tools"]
    assert out["readme"]["contents"][0]["text"] == "Read me first."
    # On the GET stream, held by one instance while the subscribe and the touch were POSTed through the balancer.
    assert out["updated"]["params"]["uri"] == "memo://readme"
    assert out["tools_changed"]["method"] == "notifications/tools/list_changed"
    assert "fresh_tool" in out["tools_after"]
    # Server->client questions answered by POSTs that the balancer sent to other instances.
    assert out["ask_name"]["content"][0]["text"] == "Hello, Ada!"
    assert out["ask_rounds"]["content"][0]["text"] == "Ada -> Hi Ada"
    owners = [i for i, d in delta.items() if d["in"] > 0]
    assert len(owners) == 1, delta  # one instance serves the session ...
    assert sum(d["out"] for d in delta.values()) == delta[owners[0]]["in"] > 10, delta  # ... reached through the others
    assert all(d["adopted"] == 0 for d in delta.values()), delta

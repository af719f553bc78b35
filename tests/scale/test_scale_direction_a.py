"""#11 direction A through a real balancer: a 2026 client (mcp 2.3.0) calls a legacy (mcp 1.29) tool
that elicits twice, three rounds; HAProxy (round-robin, no stickiness) spreads the rounds over three
bridge instances sharing a real redis-server; the retries that land away from the instance holding the
parked call are forwarded to it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
import scale_peers
from mcp.client import Client

import peers

pytestmark = [pytest.mark.legacy_peer, pytest.mark.anyio]


@pytest.fixture(scope="module")
def cluster() -> Iterator[scale_peers.Cluster]:
    """One legacy server over HTTP (each instance keeps its own upstream sessions to it)."""
    port = peers.free_port()
    server = [peers.legacy_python(), str(peers.SAMPLES / "legacy" / "mrtr_server.py"), "http", "--port", str(port)]
    upstream = ["--upstream", f"http://127.0.0.1:{port}/mcp"]
    with peers.running(server, port), scale_peers.redis_server() as store, \
            scale_peers.cluster(store, upstream, 3, "--front-era", "2026-07-28") as c:
        yield c


async def two_questions(url: str, name: str, color: str) -> str:
    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        wanted = set((getattr(params, "requested_schema", None) or {}).get("properties", {}))
        return types.ElicitResult(action="accept", content={"color": color} if "color" in wanted else {"name": name})

    async with Client(url, mode="2026-07-28", elicitation_callback=elicit, cache=None) as client:
        result = await client.call_tool("two_questions", {})
        return result.content[0].text  # type: ignore[union-attr]


def test_three_rounds_on_three_instances(cluster: scale_peers.Cluster) -> None:
    text, delta = cluster.counted("forwarded", lambda: anyio.run(two_questions, cluster.url, "Ada", "teal"))
    assert text == "Ada likes teal"
    # Round 1 parked on one instance; rounds 2 and 3 landed on the two others and were forwarded to it.
    owners = [i for i, d in delta.items() if d["in"] == 2]
    assert len(owners) == 1, delta
    assert sorted(d["out"] for i, d in delta.items() if i != owners[0]) == [1, 1], delta
    assert all(d["lost"] == 0 and d["store_errors"] == 0 for d in delta.values()), delta


async def test_64_concurrent_clients_none_lost_none_crossed(cluster: scale_peers.Cluster) -> None:
    results: dict[int, str] = {}

    async def one(i: int) -> None:
        results[i] = await two_questions(cluster.url, f"caller-{i:02d}", f"colour-{i:02d}")

    async with anyio.create_task_group() as tg:
        for i in range(64):
            tg.start_soon(one, i)
    assert results == {i: f"caller-{i:02d} likes colour-{i:02d}" for i in range(64)}
    totals = cluster.counters("forwarded")
    assert sum(d["out"] for d in totals.values()) > 0
    assert sum(d["lost"] for d in totals.values()) == 0


def test_healthz_lists_the_registry(cluster: scale_peers.Cluster) -> None:
    health = httpx.get(f"http://127.0.0.1:{cluster.instances[0].port}/healthz", timeout=10).json()
    assert health["upstream"]["cluster"]["instances"] == ["bridge-0", "bridge-1", "bridge-2"]
    assert health["upstream"]["cluster"]["store"].startswith("redis://127.0.0.1:")

"""Rate limits shared across replicas (issue 34, acceptance 4): the Redis bucket script against a real redis-server,
and three bridge instances behind HAProxy sharing it, one caller hammering them while another is unaffected."""

from __future__ import annotations

import asyncio
import secrets
import sys
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
import scale_peers

from mcp_eras.bridge.store.base import StoreError
from mcp_eras.bridge.store.redis_store import RedisStore

import peers

BURST = 5


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    with scale_peers.redis_server() as url:
        yield url


@pytest.fixture
async def store(redis_url: str) -> AsyncIterator[RedisStore]:
    s = RedisStore(redis_url, prefix=f"t{secrets.token_hex(4)}")
    await s.start()
    try:
        yield s
    finally:
        await s.aclose()


@pytest.mark.anyio
async def test_the_bucket_script_takes_each_token_once_under_concurrency(store: RedisStore) -> None:
    results = await asyncio.gather(*(store.rate_take("files:alice", 1, 0.001, BURST, timeout=5) for _ in range(20)))
    assert sum(allowed for allowed, _ in results) == BURST
    waits = [wait for allowed, wait in results if not allowed]
    assert len(waits) == 20 - BURST and all(wait > 0 for wait in waits)
    assert (await store.rate_take("files:bob", 1, 0.001, BURST, timeout=5))[0]
    ttl = await store.client.pttl(store._k("rate", "files:alice"))  # noqa: SLF001
    assert 0 < ttl <= BURST / 0.001 * 1000 + 1000  # lapses once it would be full again


@pytest.mark.anyio
async def test_a_flushed_script_is_sent_again(store: RedisStore) -> None:
    assert (await store.rate_take("k", 1, 1.0, 2, timeout=5))[0]
    await store.client.script_flush()
    assert (await store.rate_take("k", 1, 1.0, 2, timeout=5))[0]  # NOSCRIPT, then EVAL
    assert not (await store.rate_take("k", 1, 1.0, 2, timeout=5))[0]
    assert (await store.client.script_exists(_sha()))[0]


def _sha() -> str:
    from mcp_eras.bridge.store.redis_store import _RATE_SHA

    return _RATE_SHA


@pytest.mark.anyio
async def test_an_unreachable_redis_is_a_store_error_within_the_deadline() -> None:
    s = RedisStore(f"redis://127.0.0.1:{peers.free_port()}/0")
    loop = asyncio.get_running_loop()
    started = loop.time()
    with pytest.raises(StoreError, match="unavailable"):
        await s.rate_take("k", 1, 1.0, 2, timeout=0.3)
    assert loop.time() - started < 5  # bounded by the deadline, not by the client's retries (loose: a busy machine)
    await s.aclose()


# --- three instances behind HAProxy ------------------------------------------------------------------------------


def _tool_call(url: str, rid: int, token: str) -> httpx.Response:
    meta = {"io.modelcontextprotocol/protocolVersion": scale_peers.MODERN, "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "hammer", "version": "1"}}
    body = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "x"},
                                                                            "_meta": meta}}
    headers = {"accept": scale_peers.ACCEPT, "mcp-protocol-version": scale_peers.MODERN, "mcp-method": "tools/call",
               "mcp-name": "echo", "authorization": f"Bearer {token}"}
    return httpx.post(url, json=body, headers=headers, timeout=30)


@pytest.fixture(scope="module")
def limited_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[scale_peers.Cluster]:
    """Three instances, one Redis, a 2026 upstream, a limit slow enough that no token comes back during the test."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
    from direction_b_peers import MODERN_SERVER

    script = tmp_path_factory.mktemp("rl") / "server.py"
    script.write_text(MODERN_SERVER)
    port = peers.free_port()
    upstream = ["--upstream", f"http://127.0.0.1:{port}/mcp", "--upstream-era", "2026-07-28"]
    with peers.running([peers.MODERN_PYTHON, str(script), "http", str(port)], port), scale_peers.redis_server() as redis, \
            scale_peers.cluster(redis, upstream, 3, "--rate", "1/h", "--burst", str(BURST)) as c:
        yield c


def _refusals(cluster: scale_peers.Cluster) -> dict[str, float]:
    """``rate_limited_total`` (reason rate) of each instance's /metrics."""
    counted = {}
    for inst in cluster.instances:
        text = httpx.get(f"http://127.0.0.1:{inst.port}/metrics", timeout=10).text
        counted[inst.instance_id] = sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                                        if line.startswith("mcp_bridge_rate_limited_total{") and 'reason="rate"' in line)
    return counted


def test_three_instances_enforce_one_limit_per_principal(limited_cluster: scale_peers.Cluster) -> None:
    url = limited_cluster.url
    before = _refusals(limited_cluster)
    statuses = [_tool_call(url, i, "hammer").status_code for i in range(4 * BURST)]
    assert Counter(statuses) == {200: BURST, 429: 3 * BURST}, statuses
    refused = _tool_call(url, 99, "hammer")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert refused.json()["error"]["data"]["limit"] == "rate"
    # another caller has its own bucket, on every instance
    assert [_tool_call(url, 100 + i, "quiet").status_code for i in range(BURST)] == [200] * BURST
    # each instance refused some of the hammering (round robin), and counted it
    after = _refusals(limited_cluster)
    moved = {i: after[i] - before[i] for i in after}
    assert sum(moved.values()) == 3 * BURST + 1 and all(n > 0 for n in moved.values()), moved


def test_a_2025_session_gets_the_named_error_and_its_housekeeping_is_free(limited_cluster: scale_peers.Cluster) -> None:
    session = scale_peers.LegacySession(limited_cluster.url)  # no credentials: the server's anonymous bucket
    assert "result" in session.open()
    for _ in range(BURST + 2):
        assert "result" in session.request("ping")
    answers = [session.request("tools/list") for _ in range(BURST + 1)]
    assert all("result" in a for a in answers[:BURST]), answers
    refused = answers[BURST]
    assert "status" not in refused  # an ordinary JSON-RPC error in the session (HTTP 200), not a 4xx ending it
    assert refused["error"]["code"] == -32000 and refused["error"]["data"]["limit"] == "rate"
    assert refused["error"]["data"]["retry_after"] > 0
    assert "result" in session.request("ping")

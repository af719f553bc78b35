"""A request naming a 2025 session the store does not know asks every other instance whether it holds the session
only while the store may have lost it (issue #33): within ``PROBE_WINDOW_S`` of a store fault this instance saw, and
otherwise a few rounds a second. Before, every such request (a made-up or long-expired session id) cost each other
instance a request: a client could make one request N-1."""

from __future__ import annotations

from typing import Any

import pytest
from inprocess.fakes import FakeUpstream
from starlette.responses import Response
from test_adoption_once import SlowInner, request

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.layers.cluster import ClusterUpstream
from mcp_eras.bridge.scaleout.sessions import ClusterLegacyFront
from mcp_eras.bridge.store.memory import MemoryStore
from mcp_eras.bridge.translate import cluster as fw

pytestmark = pytest.mark.anyio


def test_probes_within_a_faults_window_and_a_budget_outside_it() -> None:
    allowed, bucket = fw.may_probe(None, now=100.0, last_fault=90.0)
    assert allowed and bucket is None  # the store failed 10 s ago: always
    outcomes = []
    for _ in range(int(fw.PROBE_BURST) + 5):
        allowed, bucket = fw.may_probe(bucket, now=100.0, last_fault=100.0 - fw.PROBE_WINDOW_S - 1)
        outcomes.append(allowed)
    assert outcomes.count(True) == int(fw.PROBE_BURST) and not outcomes[-1]
    allowed, bucket = fw.may_probe(bucket, now=100.0 + 1 / fw.PROBE_RATE, last_fault=None)
    assert allowed  # the budget refills


async def test_unknown_sessions_are_looked_for_elsewhere_only_within_the_budget() -> None:
    store = MemoryStore()
    settings = Settings(state_key=bytes(range(32)), instance_id="a", state_store="redis://unused", request_timeout=10.0)
    cluster = ClusterUpstream(FakeUpstream(), settings, store, "http://a")
    cluster.known = {"b": {"url": "http://b"}, "c": {"url": "http://c"}}
    cluster.store_ok = True
    front = ClusterLegacyFront(SlowInner(), cluster, settings)  # type: ignore[arg-type]
    asked: list[str] = []

    async def relay(url: str, *_args: Any, **_kw: Any) -> Response | None:
        asked.append(url)
        return None  # nobody holds it

    front._relay = relay  # type: ignore[method-assign]

    async def local() -> Response:
        return Response(status_code=404)

    for n in range(40):
        await front._route(request(f"made-up-{n}"), b"", 1, local)
    rounds = len(asked) // 2
    assert 1 <= rounds <= fw.PROBE_BURST + 2, rounds
    assert front.relayed["probes_skipped"] == 40 - rounds
    asked.clear()
    cluster.count_store_error()  # the store failed: it may have lost sessions, every request asks
    for n in range(20):
        await front._route(request(f"lost-{n}"), b"", 1, local)
    assert len(asked) == 2 * 20

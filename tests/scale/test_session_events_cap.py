"""The GET-stream events a 2025 session copies to the shared store wait in a bounded queue: with the store frozen
(each write hangs), at most ``MAX_STORED_EVENTS`` wait, the oldest let go first (issue #33: every resource has a
cap while the store fails)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from inprocess.fakes import FakeUpstream

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.layers.cluster import ClusterUpstream
from mcp_eras.bridge.scaleout.sessions import MAX_STORED_EVENTS, ClusterLegacyFront
from mcp_eras.bridge.store.memory import MemoryStore

pytestmark = pytest.mark.anyio


async def test_unwritten_events_are_capped_while_the_store_hangs() -> None:
    store = MemoryStore()
    frozen, taken = asyncio.Event(), asyncio.Event()

    async def hang(sid: str, event: dict[str, Any], **_kw: Any) -> str:
        taken.set()
        await frozen.wait()
        return "0-1"

    store.append_event = hang  # type: ignore[method-assign]
    settings = Settings(state_key=bytes(range(32)), instance_id="a", state_store="redis://unused")
    cluster = ClusterUpstream(FakeUpstream(), settings, store, "http://a")
    stream = SimpleNamespace(on_push=None)
    inner = SimpleNamespace(sessions={"s1": SimpleNamespace(get_stream=stream, session=None)})
    front = ClusterLegacyFront(inner, cluster, settings)  # type: ignore[arg-type]
    front._keep_events("s1")
    try:
        for seq in range(MAX_STORED_EVENTS + 500):
            stream.on_push(seq, {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        with anyio.fail_after(30):
            await taken.wait()  # the writer took the oldest event left and hangs on it
        queue, _task = front._writers["s1"]
        assert queue.qsize() <= MAX_STORED_EVENTS
        assert front.relayed["events_dropped"] >= 499
        assert queue.get_nowait()[0] >= 500  # the oldest went first
    finally:
        front._forget("s1")

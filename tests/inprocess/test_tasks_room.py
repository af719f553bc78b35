"""The tasks shells' caps carried out (``mcp_eras.bridge.layers.tasks_room``), in process: creations under way
count, forgotten records take their result pump and upstream mapping with them, idle task sessions are closed
by the reaper and for room, and every refusal and close is counted for ``/healthz``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.layers.tasks_room import TaskRoom
from mcp_eras.bridge.translate import tasks as tk
from mcp_eras.bridge.translate.jsonrpc import FrameError

pytestmark = pytest.mark.anyio


class Channel:
    """A task session as the room sees it."""

    def __init__(self, last_used_ms: int, pending: int = 0, state: str = "ready") -> None:
        self.last_used_ms = last_used_ms
        self.pending = pending
        self.state = state

    def in_flight(self) -> int:
        return self.pending

    async def close(self) -> None:
        self.state = "closed"


class Owner:
    """The parts of ``TasksUpstream`` the room reads and changes."""

    def __init__(self, **settings: Any) -> None:
        self.settings = Settings(**settings)
        self.store = tk.MemoryTaskStore()
        self.channels: dict[tuple[str | None, str], Channel] = {}
        self.by_upstream: dict[tuple[tuple[str | None, str], str], str] = {}
        self.pumps: dict[str, asyncio.Task[None]] = {}
        self.clock = 1_000_000
        self._channel_lock = asyncio.Lock()

    def now_ms(self) -> int:
        return self.clock


def record(bridge_id: str, principal: str = "alice", status: str = "working", session: str = "{}",
           ttl_ms: int | None = 60_000, created_ms: int = 1_000_000) -> tk.TaskRecord:
    return tk.TaskRecord(bridge_id=bridge_id, upstream_id=f"u-{bridge_id}", principal=principal, client_era="2026-07-28",
                         upstream_era="2025-11-25", status=status, created_ms=created_ms, updated_ms=created_ms,
                         ttl_ms=ttl_ms, session=session)


async def test_creations_under_way_count_against_the_principal_cap() -> None:
    owner = Owner(tasks_per_principal=2)
    room = TaskRoom(owner)  # type: ignore[arg-type]
    with room.admitted("alice"), room.admitted("alice"):
        with pytest.raises(FrameError) as refused, room.admitted("alice"):
            pass
        with room.admitted("bob"):
            pass
    assert refused.value.data == {"limit": "tasks_per_principal"}
    with room.admitted("alice"):  # both ended (without a record): room again
        pass
    assert not room.creating and room.status()["refused"] == {"tasks_per_principal": 1}


async def test_a_forgotten_record_takes_its_pump_and_upstream_mapping_along() -> None:
    owner = Owner(tasks_per_principal=1)  # records_per_principal = 4
    room = TaskRoom(owner)  # type: ignore[arg-type]
    for i in range(4):
        owner.store.put(record(f"f{i}", status="completed", created_ms=1_000_000 + i))
        owner.by_upstream[(("alice", "{}"), f"u-f{i}")] = f"f{i}"
    owner.store.put(record("old", ttl_ms=10, created_ms=0))
    pump = asyncio.get_running_loop().create_task(asyncio.sleep(3600))
    owner.pumps["old"] = pump
    with room.admitted("alice"):
        pass
    await asyncio.sleep(0)
    assert pump.cancelled() and "old" not in owner.pumps
    assert owner.store.get("old") is None and owner.store.get("f0") is None and owner.store.get("f1") is not None
    assert (("alice", "{}"), "u-f0") not in owner.by_upstream
    assert room.status()["recordsForgotten"] == 1  # the expired one is not counted: its TTL was over


async def test_the_instance_total_sweeps_every_expired_record_before_refusing() -> None:
    owner = Owner(tasks_max=2)
    room = TaskRoom(owner)  # type: ignore[arg-type]
    owner.store.put(record("b1", principal="bob", ttl_ms=10, created_ms=0))
    owner.store.put(record("c1", principal="carol"))
    with room.admitted("alice"):
        pass
    assert owner.store.get("b1") is None and len(owner.store) == 1
    owner.store.put(record("a1"))
    with pytest.raises(FrameError) as refused, room.admitted("alice"):
        pass
    assert refused.value.data == {"limit": "tasks_total"} and refused.value.http_status == 503


async def test_idle_sessions_are_closed_busy_ones_kept_and_the_reaper_stops_with_the_room() -> None:
    owner = Owner(pool_idle_timeout=60.0)
    room = TaskRoom(owner)  # type: ignore[arg-type]
    idle, working, asking = Channel(last_used_ms=0), Channel(last_used_ms=0), Channel(last_used_ms=0, pending=1)
    owner.channels = {("alice", "{}"): idle, ("bob", "{}"): working, ("carol", "{}"): asking}
    owner.store.put(record("t", principal="bob"))
    owner.by_upstream[(("alice", "{}"), "u-x")] = "x"
    await room.reap()
    assert list(owner.channels) == [("bob", "{}"), ("carol", "{}")] and idle.state == "closed"
    assert not owner.by_upstream and room.status()["sessionsClosed"] == {"idle": 1}
    await room.make_room("dave")  # under the caps: nothing closed; the reaper now runs in the background
    assert room._reaper is not None and not room._reaper.done()
    await room.aclose()
    assert room._reaper is None


async def test_at_the_session_cap_an_idle_session_is_closed_for_room_and_a_busy_one_never() -> None:
    owner = Owner(task_sessions_max=1)
    room = TaskRoom(owner)  # type: ignore[arg-type]
    owner.channels = {("alice", "{}"): Channel(last_used_ms=owner.clock - 10, pending=1)}
    with pytest.raises(FrameError) as refused:
        await room.make_room("bob")
    assert refused.value.data == {"limit": "task_sessions"}
    owner.channels[("alice", "{}")].pending = 0
    with pytest.raises(FrameError):  # idle, but used 10 ms ago: not taken from under its caller
        await room.make_room("bob")
    owner.clock += 1_000
    await room.make_room("bob")
    assert not owner.channels and room.status() == {
        "refused": {"task_sessions": 2}, "sessionsClosed": {"room": 1}, "recordsForgotten": 0}
    await room.aclose()

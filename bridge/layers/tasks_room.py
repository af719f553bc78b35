"""The caps of the tasks shells, carried out (``mcp_eras.bridge.translate.task_limits`` decides): admission of a
new task in both directions, room for a new direction A task session, and the closing of idle ones.

What is counted (``status()`` of the tasks upstream, under ``taskLimits``): refusals by cap, task sessions closed
for room or idleness, records forgotten early (a principal's oldest finished ones over its record cap)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.layers.tasks_channel import ChannelKey, TaskChannel
from mcp_eras.bridge.translate import task_limits as tl
from mcp_eras.bridge.translate import tasks as tk
from mcp_eras.bridge.translate.legacy_server import task_routing as tr

log = logging.getLogger("mcp_bridge.tasks")


def limits_of(settings: Settings) -> tl.TaskLimits:
    return tl.limits_for(settings.tasks_per_principal, settings.tasks_max, settings.task_sessions_max,
                         settings.task_sessions_per_principal, settings.pool_idle_timeout)


class RoomOwner(Protocol):
    """What the caps act on in the tasks layer (``TasksUpstream``): its records, task sessions and result pumps."""

    settings: Settings
    store: tk.TaskStore
    now_ms: Callable[[], int]
    channels: dict[ChannelKey, TaskChannel]
    by_upstream: dict[tuple[ChannelKey, str], str]
    pumps: dict[str, asyncio.Task[None]]
    channel_lock: asyncio.Lock


class TaskRoom:
    def __init__(self, owner: RoomOwner) -> None:
        self.owner = owner
        self.limits = limits_of(owner.settings)
        self.refused: Counter[str] = Counter()
        self.closed: Counter[str] = Counter()
        self.forgotten = 0
        self.creating: Counter[str | None] = Counter()
        """Creations of each principal between admission and their record (counted as unfinished tasks)."""
        self._reaper: asyncio.Task[None] | None = None

    def status(self) -> dict[str, Any]:
        return {"refused": dict(self.refused), "sessionsClosed": dict(self.closed), "recordsForgotten": self.forgotten}

    # --- task records -------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def admitted(self, principal: str | None) -> Iterator[None]:
        """Around one task creation: admitted (room made) or the named limit error; while it runs, it counts."""
        owner = self.owner
        store = owner.store
        now = owner.now_ms()

        def others_expired() -> Iterator[str]:
            yield from store.expired_ids(now)

        pending = self.creating[principal]
        decision = tl.admit(store.owned_by(principal), len(store) + sum(self.creating.values()), self.limits, now,
                            others_expired(), pending=pending)
        for bridge_id in decision.forget:
            self._forget(bridge_id, now)
        if decision.refused is not None:
            self.refused[decision.refused] += 1
            raise decision.error()
        self.creating[principal] += 1
        try:
            yield
        finally:
            self.creating[principal] -= 1
            if not self.creating[principal]:
                del self.creating[principal]

    def _forget(self, bridge_id: str, now_ms: int) -> None:
        owner = self.owner
        record = owner.store.get(bridge_id)
        if record is None:
            return
        if not record.expired(now_ms):
            self.forgotten += 1
        owner.store.delete(bridge_id)
        owner.by_upstream.pop(((record.principal, record.session or ""), record.upstream_id or ""), None)
        pump = owner.pumps.pop(bridge_id, None)
        if pump is not None:
            pump.cancel()

    # --- direction A's task sessions ----------------------------------------------------------------------

    def _infos(self) -> list[tl.SessionInfo]:
        owner = self.owner
        return [tl.session_info(key, key[0], over, () if over else owner.store.owned_by(key[0]), key[1], channel.in_flight(),
                                channel.last_used_ms)
                for key, channel in owner.channels.items() for over in [tr.session_over(channel.state)]]

    async def make_room(self, principal: str | None) -> None:
        """Before a new task session of ``principal`` opens: idle sessions closed for it, or the named limit error."""
        room = tl.make_room(self._infos(), principal, self.limits, self.owner.now_ms())
        if room.refused is not None:
            self.refused[room.refused] += 1
            raise room.error()
        for key in room.close:
            await self._close(key, "room")
        if self._reaper is None:
            self._reaper = asyncio.get_running_loop().create_task(self._reap_forever())

    async def _close(self, key: ChannelKey, why: str) -> None:
        owner = self.owner
        channel: TaskChannel | None = owner.channels.pop(key, None)
        if channel is None:
            return
        self.closed[why] += 1
        for mapped in [m for m in owner.by_upstream if m[0] == key]:
            del owner.by_upstream[mapped]
        log.info("task session closed (%s)", "idle" if why == "idle" else "to make room for another")
        await channel.close()

    async def reap(self) -> None:
        """Close the task sessions nothing used for the idle timeout."""
        for key in tl.idle_sessions(self._infos(), self.limits, self.owner.now_ms()):
            await self._close(key, "idle")

    async def _reap_forever(self) -> None:
        period = tl.reap_period_s(self.limits)
        while True:
            await asyncio.sleep(period)
            try:
                async with self.owner.channel_lock:
                    await self.reap()
            except Exception:  # noqa: BLE001 - the reaper outlives one bad close
                log.exception("task session reaper failed")

    async def aclose(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None

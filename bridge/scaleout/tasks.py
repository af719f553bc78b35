"""Tasks scaled out: a task id names the instance that holds its upstream task, and its record is shared.

The instance that created a task holds what cannot move: the dedicated 2025 task session with the
upstream task and its result pump (``mcp_eras.bridge.layers.tasks``). Its bridge ids end with
``.<instance>`` (the random part stays unguessable: 2026-07-28 ``io.modelcontextprotocol/tasks``
extension, tasks.mdx §Security Considerations), and every record it writes is copied to the shared
store (write-behind, the latest version wins) for the record's TTL.

``tasks/get``, ``tasks/update``, ``tasks/cancel`` and ``tasks/result`` for a task this instance does
not hold are forwarded to the owner over ``/internal/forward`` (``ClusterUpstream.forward``), the
answer streaming back. When the owner is gone, the shared record is taken over: a task whose upstream
is a 2026 server (it holds the task itself, reachable from any instance) continues here; one held by a
2025 server's session on the dead instance becomes ``failed`` with -32603 "Upstream task lost" (the
documented choice, as when an upstream child restarts). The owner binding is unchanged: the record
answers only its principal (``mcp_eras.bridge.translate.tasks.owned``).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import Any

from mcp_eras.bridge.core import CallContext, Emit, Upstream, find
from mcp_eras.bridge.layers.cluster import ClusterUpstream, store_down
from mcp_eras.bridge.layers.tasks import TasksUpstream
from mcp_eras.bridge.store.base import Store, StoreError
from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate import tasks as tk
from mcp_eras.bridge.translate.jsonrpc import Message

log = logging.getLogger("mcp_bridge.cluster.tasks")

SPACE = "tasks"
CHANGES = "tasks"
"""The announcement channel of task record changes (``{"id": bridge id}``), for listens on other instances."""
FOLLOW_POLL_S = 1.0
"""How often the follower of other instances' task changes checks whether any listen still needs it."""
ROUTED = frozenset({"tasks/get", "tasks/update", "tasks/cancel", "tasks/result"})
UNLIMITED_TTL_MS = 7 * 24 * 3600 * 1000
"""How long the shared copy of a task with no TTL (``ttl: null``) is kept."""


def minter(instance: str) -> Callable[[], str]:
    return lambda: f"{secrets.token_urlsafe(24)}.{instance}"


class SharedTaskStore(tk.TaskStore):
    """The instance's records in memory (the pure machines read them synchronously), each write also
    copied to the shared store in the background, one writer, the latest version of a record wins."""

    def __init__(self, store: Store, on_error: Callable[[StoreError], None], local: tk.TaskStore | None = None) -> None:
        self.store = store
        self.local = local or tk.MemoryTaskStore()
        self.on_error = on_error
        self._dirty: dict[str, dict[str, Any]] = {}
        self._writer: asyncio.Task[None] | None = None

    def put(self, record: tk.TaskRecord) -> None:
        self.local.put(record)
        self._dirty[record.bridge_id] = record.to_json()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write())

    def adopt(self, record: tk.TaskRecord) -> None:
        """Hold a record taken over from a gone owner (written back so that the shared copy says so too)."""
        self.put(record)

    def get(self, bridge_id: str) -> tk.TaskRecord | None:
        return self.local.get(bridge_id)

    def delete(self, bridge_id: str) -> None:
        self.local.delete(bridge_id)
        self._dirty.pop(bridge_id, None)

    def owned_by(self, principal: str | None, session: str | None = None) -> list[tk.TaskRecord]:
        return self.local.owned_by(principal, session)

    def ids(self) -> list[str]:
        return self.local.ids()

    def expired_ids(self, now_ms: int) -> list[str]:
        return self.local.expired_ids(now_ms)

    def __len__(self) -> int:
        return len(self.local)

    async def _write(self) -> None:
        while self._dirty:
            bridge_id = next(iter(self._dirty))
            data = self._dirty.pop(bridge_id)
            ttl = data.get("ttl_ms")
            ttl_ms = ttl if isinstance(ttl, int) and ttl > 0 else UNLIMITED_TTL_MS
            try:
                await self.store.cache_put(SPACE, bridge_id, data, ttl_ms)
                await self.store.cache_index(SPACE, tk.principal_index(data.get("principal")), bridge_id, ttl_ms)
                await self.store.publish(CHANGES, {"id": bridge_id})
            except StoreError as exc:
                self.on_error(exc)
                log.warning("task %s not shared: %s", bridge_id, exc)

    async def everywhere(self, principal: str | None, now_ms: int) -> list[tk.TaskRecord]:
        """The principal's records on every instance (``tasks/list``): this instance's own and the shared copies of
        the others'. A store that fails leaves this instance's own (a store fault answers what this one holds)."""
        local = self.local.owned_by(principal)
        try:
            shared = await self.store.cache_listed(SPACE, tk.principal_index(principal), limit=tk.MAX_LISTED_SHARED)
        except StoreError as exc:
            self.on_error(exc)
            return local
        return tk.listed_everywhere(local, shared, principal, now_ms)

    async def republish(self) -> None:
        """Write every record held here again (the store lost them, or refused their writes)."""
        for bridge_id in self.local.ids():
            record = self.local.get(bridge_id)
            if record is not None:
                self._dirty[bridge_id] = record.to_json()
        await self._write()

    async def shared(self, bridge_id: str) -> tk.TaskRecord | None:
        data = await self.store.cache_get(SPACE, bridge_id)
        try:
            return tk.TaskRecord.from_json(data) if isinstance(data, dict) else None
        except (TypeError, ValueError):
            return None

    async def flush(self) -> None:
        """Wait for the background writer (tests, shutdown)."""
        while self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)


class ClusterTasks:
    """``TasksUpstream.remote``: routes a task request to the instance that holds the task."""

    def __init__(self, cluster: ClusterUpstream, store: SharedTaskStore, now_ms: Callable[[], int],
                 watchers: dict[str, set[asyncio.Queue[str]]] | None = None) -> None:
        self.cluster = cluster
        self.store = store
        self.now_ms = now_ms
        self.counts = {"forwarded": 0, "taken_over": 0, "lost": 0}
        self.watchers: dict[str, set[asyncio.Queue[str]]] = watchers if watchers is not None else {}
        """The tasks layer's listen queues by task id (``TasksUpstream.watchers``)."""
        self._follower: asyncio.Task[None] | None = None

    # --- listens with taskIds of tasks held elsewhere ------------------------------------------------------------

    async def watchable(self, task_id: str, principal: str | None) -> bool:
        """Whether a listen of ``principal`` may watch ``task_id`` held by another instance: its shared record is the
        principal's, a 2026 client's and live (as ``TasksUpstream._owned`` decides for a local one)."""
        owner = tk.owner_instance(task_id)
        if owner is None or owner == self.cluster.instance_id:
            return False
        record = await self.record(task_id)
        return (record is not None and record.principal == principal and record.client_era == eras.MODERN
                and not record.expired(self.now_ms()))

    async def record(self, task_id: str) -> tk.TaskRecord | None:
        """The shared copy of a task held elsewhere (None when unknown or the store fails)."""
        try:
            return await self.store.shared(task_id)
        except StoreError as exc:
            self.cluster.count_store_error()
            log.warning("task %s not read from the store: %s", task_id, exc)
            return None

    def follow(self) -> None:
        """Follow the other instances' task changes while a listen here watches a task held elsewhere (one follower)."""
        if self._follower is None or self._follower.done():
            self._follower = asyncio.get_running_loop().create_task(self._follow())

    def _remote_watched(self) -> bool:
        return any(self.store.get(task_id) is None for task_id in self.watchers)

    async def _follow(self) -> None:
        while self._remote_watched():
            try:
                sub = await self.cluster.store.subscribe(CHANGES)
            except StoreError as exc:
                self.cluster.count_store_error()
                log.warning("task changes of other instances not followed: %s", exc)
                await asyncio.sleep(FOLLOW_POLL_S)
                continue
            try:
                while self._remote_watched():
                    msg = await sub.get(timeout=FOLLOW_POLL_S)
                    task_id = msg.get("id") if isinstance(msg, dict) else None
                    if isinstance(task_id, str) and self.store.get(task_id) is None:
                        for queue in self.watchers.get(task_id, ()):
                            queue.put_nowait(task_id)
            except StoreError as exc:
                self.cluster.count_store_error()
                log.warning("task changes of other instances: %s", exc)
            finally:
                await sub.aclose()

    async def route(self, request: Message, ctx: CallContext, emit: Emit) -> Message | None:
        """The owner's answer, or None when this instance answers (it holds the task, took it over just
        now, or nobody knows it: the local not-found)."""
        params = request.get("params")
        task_id = params.get("taskId") if isinstance(params, dict) else None
        if request.get("method") not in ROUTED or not isinstance(task_id, str) or self.store.get(task_id) is not None:
            return None
        owner = tk.owner_instance(task_id)
        if owner is None:
            return None
        try:
            why = f"bridge instance {owner} restarted"
            if owner != self.cluster.instance_id:
                answer = await self.cluster.forward(owner, request, ctx, emit)
                if isinstance(answer, dict):
                    self.counts["forwarded"] += 1
                    return answer
                why = answer
            record = await self.store.shared(task_id)
        except StoreError as exc:
            return store_down(request.get("id"), exc)
        if record is not None:
            self._take_over(record, why)
        return None

    def _take_over(self, record: tk.TaskRecord, why: str) -> None:
        if tk.taken_over(record, why, self.now_ms()):
            self.counts["lost"] += 1
        self.counts["taken_over"] += 1
        log.info("task %s taken over (%s)", record.bridge_id, why)
        self.store.adopt(record)


def attach(tasks: TasksUpstream, cluster: ClusterUpstream) -> None:
    """Put ``tasks`` behind the cluster's shared store: owner-naming ids, shared records, routing."""
    shared = SharedTaskStore(cluster.store, lambda exc: cluster.count_store_error(), tasks.store)
    tasks.store = shared
    tasks.mint = minter(cluster.instance_id)
    remote = ClusterTasks(cluster, shared, tasks.now_ms, tasks.watchers)
    tasks.remote = remote
    tasks.listing = lambda principal: shared.everywhere(principal, tasks.now_ms())
    cluster.republishers.append(shared.republish)
    cluster.task_counts.append(remote.counts)


def attach_found(upstream: Upstream, cluster: ClusterUpstream) -> None:
    """``attach`` the tasks layer of ``upstream``'s stack, if it has one (and has it already: a fleet server builds its
    upstream at start, and attaches each generation's as it is built)."""
    found = find(upstream, TasksUpstream)
    if found is not None:
        attach(found, cluster)

"""Direction B scaled out: one upstream ``subscriptions/listen`` per share key for the whole cluster.

The shell of ``mcp_eras.bridge.translate.legacy_client.listen_cluster`` (the rules and why). Per share key that has
members here, a ``Link`` holds one subscription to the key's channel and, every heartbeat interval, writes this
instance's want (its members' union) to the store and takes or renews the key's lease (``Store.lease``). The leader's
``SharedListen`` opens the upstream listen and publishes its notifications; a follower's runs a channel listen
(``Link.follow``) that the ``SharedListen`` treats like an upstream one (acknowledgement, notifications, drop).

Every store command is bounded by the store's own deadline; a channel listen waits at most ``FOLLOW_DEADLINE_S`` for
the leader. On any doubt (the store fails, the leader is silent or gone) an instance holds its own upstream listen,
as a single instance does, and the next ticks bring the cluster back to one listen per key.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.store.base import Store, StoreError, Subscription
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import listen as ll
from mcp_eras.bridge.translate.legacy_client import listen_cluster as lc

if TYPE_CHECKING:
    from mcp_eras.bridge.front.legacy_listener import ListenHub, SharedListen

log = logging.getLogger("mcp_bridge.cluster.listens")

WANTS = "listen-wants"
"""The cache space of the instances' wants (``<digest>:<instance>``, filed under the digest)."""
FOLLOW_DEADLINE_S = 5.0
"""How long a channel listen waits for the leader to acknowledge this instance's want before listening itself."""
CLOSE_DEADLINE_S = 5.0
"""How long closing the links (withdraw the wants, give the leases up) may hold a front's shutdown."""


class Link:
    """One share key's coordination on this instance (``ListenLink``)."""

    def __init__(self, owner: ClusterListens, group: SharedListen) -> None:
        self.owner = owner
        self.group = group
        self.co = lc.Coordination(owner.me)
        self.name = lc.digest(group.key)
        self.closed = False
        self.sub: Subscription | None = None
        self.acked: dict[str, Any] = {}
        """The filter of the holder's last acknowledgement, its epoch, and how many were heard (``ack_seq``)."""
        self.ack_epoch = 0
        self.ack_seq = 0
        self._ack_event = asyncio.Event()
        self.queues: set[asyncio.Queue[Message | None]] = set()
        """One per channel listen that runs (acknowledged)."""
        self._reader = asyncio.get_running_loop().create_task(self._read(), name=f"listen-link:{self.name}")
        self._refreshing: asyncio.Task[None] | None = None
        self._refresh_again = False
        self._switching: asyncio.Task[None] | None = None
        self._want_lock = asyncio.Lock()
        self._publish_failed = False
        """A publish failed: the leader's notifications wait for no store until a lease attempt succeeds again."""

    @property
    def store(self) -> Store:
        return self.owner.store

    # --- ListenLink -------------------------------------------------------------------------------------------

    async def choose(self, fresh: bool) -> str:
        if not fresh:
            return lc.source(self.co)
        outcome, holder = await self._attempt()
        source = lc.attempted(self.co, outcome, holder)
        if self.co.role != lc.LEADER:
            lc.set_remote(self.group.state, {})
        return source

    def opened(self, source: str, ok: bool) -> None:
        lc.opened(self.co, source, ok)
        if ok:
            self.owner.counts["followed" if source == lc.CHANNEL else "listened"] += 1
        if ok and self.co.role == lc.LEADER:
            self.refresh_soon()  # the others' wants, then the acknowledgement they wait for
        if not ok:
            self.owner.counts["follow_failed"] += 1

    async def follow(self, listen_id: str, filt: dict[str, Any], emit: Callable[[Message], Awaitable[None]]) -> None:
        seq = self.ack_seq
        try:
            await self._write_want(filt)  # (what the listen asks for: no less than the members need now)
            await self.store.publish(self._channel, lc.want_message(self.owner.me))
        except StoreError as exc:
            self.owner.store_error()
            raise UpstreamError(f"want not announced: {exc}") from exc
        acked = await self._covering(seq, filt)
        lc.followed_at(self.co, self.ack_epoch)
        queue: asyncio.Queue[Message | None] = asyncio.Queue(lc.MAX_QUEUED + 1)
        self.queues.add(queue)
        try:
            await emit(jsonrpc.notification(lf.ACKNOWLEDGED, {"notifications": acked}))
            while (note := await queue.get()) is not None:
                await emit(note)
        finally:
            self.queues.discard(queue)

    async def publish(self, msg: Message) -> None:
        if self.co.role != lc.LEADER or self._publish_failed:
            return
        out = lc.note_message(self.owner.me, msg)
        if out is None:
            self.owner.counts["too_large"] += 1
            return
        try:
            await self.store.publish(self._channel, out)
            self.owner.counts["published"] += 1
        except StoreError as exc:
            self.owner.store_error()
            self._publish_failed = True
            log.warning("notifications not published to the other instances until the store answers: %s", exc)

    def changed(self) -> None:
        lc.set_remote(self.group.state, {} if self.co.role != lc.LEADER else self._remote())

    # --- the rest ---------------------------------------------------------------------------------------------

    @property
    def _channel(self) -> str:
        return f"listen:{self.name}"

    def _remote(self) -> dict[str, dict[str, Any]]:
        return {m: f for m, f in self.group.state.members.items() if lc.is_remote(m)}

    async def _attempt(self) -> tuple[str, str | None]:
        if not self.owner.healthy():
            return lc.FAULT, None  # the store failed its last heartbeat: no wait on it
        ttl = int(self.owner.interval * 1000 * lc.LEASE_TICKS)
        try:
            holder = await self.store.lease(f"listen:{self.name}", self.owner.me, ttl)
        except StoreError as exc:
            self.owner.store_error()
            log.debug("listen lease not taken: %s", exc)
            return lc.FAULT, None
        self._publish_failed = False
        return (lc.MINE if holder == self.owner.me else lc.OTHER), holder

    async def _write_want(self, filt: dict[str, Any] | None = None) -> None:
        """Write this instance's want: what its members need when the write begins (with ``filt``, at least that).
        One write at a time, so that an older want never lands after a newer one."""
        ttl = int(self.owner.interval * 1000 * (lc.LEASE_TICKS + 2))
        key = f"{self.name}:{self.owner.me}"
        async with self._want_lock:
            want = ll.union([lc.local_filter(self.group.state), filt or {}])
            await self.store.cache_put(WANTS, key, lc.want(self.owner.me, want), ttl)
            await self.store.cache_index(WANTS, self.name, key, ttl)

    async def _covering(self, seq: int, filt: dict[str, Any]) -> dict[str, Any]:
        """The holder's acknowledgement heard after ``seq`` that covers ``filt``; UpstreamError past the deadline."""
        try:
            async with asyncio.timeout(FOLLOW_DEADLINE_S):
                while self.ack_seq == seq or not ll.covers(self.acked, filt):
                    await self._ack_event.wait()
        except TimeoutError as exc:
            raise UpstreamError(f"no leader acknowledged within {FOLLOW_DEADLINE_S:g}s") from exc
        return dict(self.acked)

    def end_follow(self) -> None:
        """End the channel listens as drops (the re-listen decides the source again)."""
        for queue in list(self.queues):
            while queue.full():
                queue.get_nowait()
            queue.put_nowait(None)

    def refresh_soon(self) -> None:
        """Read the others' wants and announce the listen (coalesced: one at a time, one more if asked meanwhile)."""
        if self._refreshing is not None and not self._refreshing.done():
            self._refresh_again = True
            return
        self._refreshing = asyncio.get_running_loop().create_task(self._refresh())

    async def _refresh(self) -> None:
        again = True
        while again and not self.closed:
            self._refresh_again = False
            await self._refresh_once()
            again = self._refresh_again

    async def _refresh_once(self) -> None:
        try:
            wants = await self.store.cache_listed(WANTS, self.name, limit=lc.MAX_REMOTE + 1)
        except StoreError as exc:
            self.owner.store_error()
            log.debug("wants not read: %s", exc)
            return
        group = self.group
        try:
            async with group.lock:
                if self.co.role != lc.LEADER or group.state.closed:
                    return
                if lc.set_remote(group.state, lc.remote_members(wants, self.owner.me)):
                    await group.apply(tighten=False)
        except Exception as exc:  # noqa: BLE001 - the listen keeps serving what it did; the next tick tries again
            log.warning("listen for the other instances not widened: %s", exc)
            return
        await self._announce()

    async def _announce(self) -> None:
        state = self.group.state
        if self.co.role != lc.LEADER or state.current is None or not self.group.holds_upstream:
            return
        out = lc.ack_message(self.owner.me, state.acked, lc.epoch(state))
        if out is None:
            return
        try:
            await self.store.publish(self._channel, out)
        except StoreError as exc:
            self.owner.store_error()
            log.debug("listen not announced: %s", exc)

    async def tick(self) -> None:
        group = self.group
        want = lc.local_filter(group.state)
        if self.closed or group.state.closed or not want:
            return
        if self.co.role != lc.LEADER and self.owner.healthy():
            with contextlib.suppress(StoreError):
                await self._write_want()
        outcome, holder = await self._attempt()
        action = lc.tick(self.co, outcome, holder)
        if self.co.role != lc.LEADER:
            lc.set_remote(group.state, {})
        if action in (lc.PROMOTE, lc.ANNOUNCE):
            if action == lc.PROMOTE:
                self.owner.counts["promoted"] += 1
            self.refresh_soon()
        elif action == lc.END_FOLLOW:
            self.end_follow()
        elif action == lc.FOLLOW and group.state.current is not None and (self._switching is None or self._switching.done()):
            # (in the background: the tick renews the other keys' leases meanwhile)
            self._switching = asyncio.get_running_loop().create_task(self._follow_leader())

    async def _follow_leader(self) -> None:
        group = self.group
        async with group.lock:
            if not group.state.closed and not self.closed and self.co.role != lc.FOLLOWER:
                with contextlib.suppress(Exception):
                    await group.switch(lc.CHANNEL)

    async def _read(self) -> None:
        """Read the channel (subscribed again after a store fault, at the tick's pace)."""
        while not self.closed:
            if self.sub is None:
                try:
                    self.sub = await self.store.subscribe(self._channel)
                except StoreError as exc:
                    self.owner.store_error()
                    log.debug("listen channel not subscribed: %s", exc)
                    self.end_follow()
                    await asyncio.sleep(self.owner.interval)
                    continue
            try:
                raw = await self.sub.get(timeout=self.owner.interval)
            except StoreError as exc:
                self.owner.store_error()
                log.debug("listen channel lost: %s", exc)
                await self._unsubscribe()
                self.end_follow()
                continue
            if raw is not None:
                self._dispatch(raw)

    def _dispatch(self, raw: Any) -> None:
        heard = lc.read(raw)
        if heard is None or heard.sender == self.owner.me:
            return
        if heard.kind == "want":
            if self.co.role == lc.LEADER:
                self.refresh_soon()
            return
        trusted = lc.heard(self.co, heard.sender)
        if heard.kind == "ack" and trusted:
            if lc.leader_dropped(self.co, heard):
                self.end_follow()
            self.acked, self.ack_epoch, self.ack_seq = heard.payload, heard.epoch, self.ack_seq + 1
            self._ack_event.set()
            self._ack_event = asyncio.Event()
        elif heard.kind == "note" and trusted:
            for queue in list(self.queues):
                if queue.qsize() >= lc.MAX_QUEUED:
                    self.owner.counts["overflowed"] += 1
                    queue.put_nowait(None)
                    self.queues.discard(queue)
                else:
                    queue.put_nowait(heard.payload)
        elif heard.kind == "bye" and trusted:
            self.end_follow()

    async def _unsubscribe(self) -> None:
        sub, self.sub = self.sub, None
        if sub is not None:
            with contextlib.suppress(StoreError):
                await sub.aclose()

    async def close(self) -> None:
        """The key has no members here any more: withdraw the want, give the lease up (saying so), unsubscribe."""
        self.closed = True
        self.end_follow()
        for task in (self._reader, self._refreshing, self._switching):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        try:
            await self.store.cache_put(WANTS, f"{self.name}:{self.owner.me}", {}, 1)
            if self.co.role == lc.LEADER:
                await self.store.release(f"listen:{self.name}", self.owner.me)
                await self.store.publish(self._channel, lc.bye_message(self.owner.me))
        except StoreError as exc:
            self.owner.store_error()
            log.debug("listen link not closed cleanly: %s", exc)
        await self._unsubscribe()


class ClusterListens:
    """``ListenCluster`` of one 2025 front: the links of its share keys and the tick that drives them."""

    def __init__(self, store: Store, me: str, interval: float, on_store_error: Callable[[], None] | None = None,
                 healthy: Callable[[], bool] | None = None) -> None:
        self.store = store
        self.me = f"{me}~{secrets.token_hex(4)}"
        """This process among the instances: the instance id and a nonce, so that an instance restarted under the
        same id is a new leader to the others (its listen is a new one: they treat the change as a gap)."""
        self.interval = interval
        self.on_store_error = on_store_error
        self.healthy = healthy or (lambda: True)
        """False while the instance's heartbeat finds the store failing (no lease attempt waits on it then)."""
        self.links: dict[int, Link] = {}
        self.counts = {"listened": 0, "followed": 0, "follow_failed": 0, "promoted": 0, "published": 0,
                       "too_large": 0, "overflowed": 0, "unlinked": 0}
        self._ticker: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Task[None]] = set()

    def store_error(self) -> None:
        if self.on_store_error is not None:
            self.on_store_error()

    def link(self, group: SharedListen) -> Link | None:
        if len(self.links) >= lc.MAX_LINKED_KEYS:
            self.counts["unlinked"] += 1
            return None
        link = self.links[id(group)] = Link(self, group)
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.get_running_loop().create_task(self._tick())
        return link

    def drop(self, group: SharedListen) -> None:
        link = self.links.pop(id(group), None)
        if link is not None:
            task = asyncio.get_running_loop().create_task(link.close())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    async def _tick(self) -> None:
        while self.links:
            await asyncio.sleep(self.interval)
            links = list(self.links.values())
            results = await asyncio.gather(*(link.tick() for link in links), return_exceptions=True)
            for result in results:
                if isinstance(result, Exception):
                    log.warning("listen coordination: %s", result)

    def status(self) -> dict[str, Any]:
        roles = [link.co.role for link in self.links.values()]
        return {"keys": len(roles), "leader": roles.count(lc.LEADER), "follower": roles.count(lc.FOLLOWER),
                "local": roles.count(lc.LOCAL), **self.counts}

    async def aclose(self) -> None:
        links = list(self.links.values())
        self.links.clear()
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(BaseException):
                await self._ticker
        closing = [*(asyncio.ensure_future(link.close()) for link in links), *self._closing]
        try:
            async with asyncio.timeout(CLOSE_DEADLINE_S):  # (each link's store commands have their own deadline too)
                await asyncio.gather(*closing, return_exceptions=True)
        except TimeoutError:
            log.warning("listen links not closed within %gs (their leases lapse by themselves)", CLOSE_DEADLINE_S)
            for task in closing:
                task.cancel()
            await asyncio.gather(*closing, return_exceptions=True)


def attach(hub: ListenHub, store: Store, me: str, interval: float, on_store_error: Callable[[], None] | None = None,
           healthy: Callable[[], bool] | None = None) -> ClusterListens:
    """Coordinate ``hub``'s shared listens with the other instances sharing ``store``."""
    cluster = ClusterListens(store, me, interval, on_store_error, healthy)
    hub.cluster = cluster
    return cluster

"""The shell of the upstream ``subscriptions/listen`` behind 2025 sessions: one ``SharedListen`` per share key (same
principal, same listen ``_meta``), run as the pure plan (``mcp_eras.bridge.translate.legacy_client.listen``) asks; it waits for
acknowledgements, fans notifications out to the member sessions the plan names and times the re-listen backoff."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream, UpstreamError
from mcp_eras.bridge.translate.jsonrpc import FrameError, Message
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import listen as ll
from mcp_eras.bridge.translate.legacy_client import listen_cluster as lc
from mcp_eras.bridge.translate.legacy_client import session as ls

log = logging.getLogger("mcp_bridge.front.legacy")


class ListenMember(Protocol):
    """What a shared listen needs of a 2025 session that joins it (``legacy_runner.LegacyFrontSession``): who it is,
    which upstream and settings it uses, and where its unsolicited notifications go."""

    upstream: Upstream
    settings: Settings
    state: ls.SessionState
    ctx: CallContext

    async def deliver_unsolicited(self, msg: Message) -> None: ...


class ListenLink(Protocol):
    """How one share key's listen is coordinated with the other instances of a cluster (``mcp_eras.bridge.scaleout.
    listens``; the rules in ``mcp_eras.bridge.translate.legacy_client.listen_cluster``)."""

    async def choose(self, fresh: bool) -> str:
        """The source (``lc.UPSTREAM`` or ``lc.CHANNEL``) of the listen about to open; ``fresh``: none is current."""
        ...

    def opened(self, source: str, ok: bool) -> None: ...

    async def follow(self, listen_id: str, filt: dict[str, Any], emit: Callable[[Message], Awaitable[None]]) -> None:
        """Run a channel listen: emit the acknowledgement once the leader covers ``filt``, then its notifications;
        return when it ends (an abrupt drop), raise UpstreamError when it could not start."""
        ...

    async def publish(self, msg: Message) -> None:
        """A change notification of the leader's listen, for the members of the other instances."""
        ...

    def changed(self) -> None:
        """The local members changed."""
        ...


class ListenCluster(Protocol):
    def link(self, group: SharedListen) -> ListenLink | None: ...

    def drop(self, group: SharedListen) -> None: ...

    async def aclose(self) -> None: ...


class SharedListen:
    """ONE upstream ``subscriptions/listen`` for the sessions of one share key; changes of the union of their
    filters replace it make-before-break."""

    def __init__(self, hub: ListenHub, key: str, prefix: str, first: ListenMember) -> None:
        self.hub = hub
        self.key = key
        self.state = ll.ListenState(prefix=prefix)
        self.sessions: dict[str, ListenMember] = {}
        """Member token -> session (the pure state has the token -> filter)."""
        self.upstream = first.upstream
        self.identity = first.state.identity
        self.ctx = CallContext(principal=first.ctx.principal, authorization=first.ctx.authorization,
                               client_era=first.ctx.client_era)
        """Equal for every member (the share key includes the principal, a digest of the authorization); trace context
        is per request and belongs to no shared listen."""
        self.timeout = first.settings.connect_timeout
        self.lock = asyncio.Lock()
        self.runs: dict[str, asyncio.Task[None]] = {}
        self._relisten: asyncio.Task[None] | None = None
        self._ended_early: dict[str, tuple[str, str]] = {}
        """Listens that ended after their acknowledgement but before ``_open`` made them current: how, and why."""
        self.sources: dict[str, str] = {}
        """Listen id -> where its notifications come from (``lc.UPSTREAM``, or ``lc.CHANNEL`` in a cluster)."""
        self.link = hub.cluster.link(self) if hub.cluster is not None else None
        """The coordination with the other instances (None: a single instance, or past the cap of linked keys)."""

    @property
    def idle(self) -> bool:
        return not self.state.members and not self.runs and not self.lock.locked()

    async def apply(self, tighten: bool) -> dict[str, Any]:
        """Make the upstream listen serve the members; returns what the upstream acknowledged (under the lock)."""
        step = ll.plan(self.state, tighten)
        if isinstance(step, ll.Keep):
            return step.acked
        if isinstance(step, ll.Stop):
            await self._cancel(step.retire)
            return {}
        return await self._open(step)

    @property
    def holds_upstream(self) -> bool:
        return self.state.current is not None and self.sources.get(self.state.current, lc.UPSTREAM) == lc.UPSTREAM

    async def _open(self, step: ll.Open) -> dict[str, Any]:
        if self.link is None:
            return await self._open_from(step, lc.UPSTREAM)
        return await self.switch(await self.link.choose(self.state.current is None), step)

    async def switch(self, source: str, step: ll.Open | None = None) -> dict[str, Any]:
        """Open a listen from ``source`` (a replacement of the current one when ``step`` is None); a channel that cannot
        be followed gives way to the upstream at once (under the lock)."""
        step = step or lc.replace(self.state)
        if step is None:
            return self.state.acked
        if source == lc.CHANNEL and self.link is not None:
            try:
                return await self._open_from(step, lc.CHANNEL)
            except Exception as exc:  # noqa: BLE001 - no leader answered in time: this instance listens itself
                self.link.opened(lc.CHANNEL, False)
                log.info("listen of another instance not followed (%s); listening upstream", exc)
                step = lc.replace(self.state)
                if step is None:
                    return self.state.acked
        return await self._open_from(step, lc.UPSTREAM)

    async def _open_from(self, step: ll.Open, source: str) -> dict[str, Any]:
        budget = self.hub.budget
        keep = {*self.runs, self.state.current, self.state.newest_acked}
        self.sources = {k: v for k, v in self.sources.items() if k in keep}
        self.sources[step.listen_id] = source
        if source == lc.CHANNEL:
            return await self._await_ack(step, source)
        try:
            replacing = self.state.current is not None
            if ll.spent(budget, replacing) and self.hub.reclaim is not None:
                await self.hub.reclaim()
            ll.take(budget, replacing)
        except FrameError as exc:
            ll.open_failed(self.state, step.listen_id, exc.code)
            raise
        return await self._await_ack(step, source)

    async def _await_ack(self, step: ll.Open, source: str) -> dict[str, Any]:
        ack: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(self._run(step.listen_id, step.filter, ack, source), name=f"legacy-listen:{step.listen_id}")
        if source == lc.UPSTREAM:
            budget = self.hub.budget
            task.add_done_callback(lambda _t: ll.give(budget))
        self.runs[step.listen_id] = task
        try:
            acked = await asyncio.wait_for(asyncio.shield(ack), self.timeout)
        except Exception as exc:
            ll.open_failed(self.state, step.listen_id, exc.code if isinstance(exc, FrameError) else None)
            await self._cancel([step.listen_id])
            raise
        done = ll.opened(self.state, step.listen_id, step.filter, acked)
        early = self._ended_early.pop(step.listen_id, None)
        if early is not None:  # it ended between its acknowledgement and now
            self._finish(step.listen_id, *early)
        if self.link is not None:
            self.link.opened(source, True)
        await self._cancel(done.retire)
        for member, notes in done.invalidate.items():  # events may have been lost while no listen was open
            for note in notes:
                await self._deliver(member, note)
        return acked

    async def _deliver(self, member: str, note: Message) -> None:
        session = self.sessions.get(member)
        if session is not None:
            await session.deliver_unsolicited(note)

    async def _cancel(self, listen_ids: list[str]) -> None:
        for listen_id in listen_ids:
            task = self.runs.pop(listen_id, None)
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def _run(self, listen_id: str, filt: dict[str, Any], ack: asyncio.Future[dict[str, Any]], source: str) -> None:
        req = lf.listen_request(listen_id, self.identity, filt)

        async def emit(msg: Message) -> None:
            if msg.get("method") == lf.ACKNOWLEDGED:
                if not ack.done():
                    ack.set_result(ll.ack_filter(msg))
                    ll.on_ack(self.state, listen_id)
                return
            out = ll.admit(self.state, listen_id, msg)
            for member in out.members if out is not None else []:
                await self._deliver(member, out.note)
            if self.link is not None and source == lc.UPSTREAM and lc.to_publish(self.state, listen_id, msg):
                await self.link.publish(msg)

        error: BaseException | None = None
        resp: Message | None = None
        try:
            if source == lc.CHANNEL and self.link is not None:
                await self.link.follow(listen_id, filt, emit)
            else:
                resp = await self.upstream.call(req, self.ctx, emit)
        except asyncio.CancelledError:
            if not ack.done():
                ack.cancel()
            raise
        except Exception as exc:  # noqa: BLE001
            error = exc
        self.runs.pop(listen_id, None)
        if not ack.done():
            refused = ll.refused_before_ack(resp)
            ack.set_exception(refused or UpstreamError(f"upstream listen ended before its acknowledgement: {error or resp}"))
            ack.exception()  # mark retrieved
            return
        kind = ll.end_kind(resp if error is None else None, listen_id)
        why = str(error or (resp or {}).get("error") or "the stream closed")
        if self.state.newest_acked == listen_id and self.state.current != listen_id and listen_id not in self.state.retired:
            self._ended_early[listen_id] = (kind, why)  # acknowledged, not yet current: ``_open`` reports the end
            return
        self._finish(listen_id, kind, why)

    def _finish(self, listen_id: str, kind: str, why: str) -> None:
        """Listen ``listen_id`` ended after its acknowledgement (``ll.end_kind``): report it, re-listen when needed."""
        reopen = ll.ended(self.state, listen_id, kind)
        again = "; re-listening" if reopen is not None else ""
        if self.sources.get(listen_id, lc.UPSTREAM) == lc.CHANNEL:  # the leader went, fell silent or was replaced
            log.info("listen %s through another instance ended (%s)%s", listen_id, why, again)
        elif kind == ll.COMPLETE:
            self.hub.ends[kind] += 1
            log.info("upstream completed listen %s%s", listen_id, again)
        else:  # an abrupt drop: changes may have been lost (the members are told when the next listen opens)
            self.hub.ends[kind] += 1
            log.warning("upstream listen %s dropped without its completion (%s)%s", listen_id, why, again)
        if reopen is not None:
            self._relisten = asyncio.create_task(self._reopen(reopen))

    async def _reopen(self, step: ll.Reopen | None) -> None:
        while step is not None:
            await asyncio.sleep(step.delay)
            try:
                async with self.lock:
                    plan = ll.reopen(self.state)
                    if plan is not None:
                        await self._open(plan)
                    return
            except Exception as exc:  # noqa: BLE001
                log.warning("re-listen failed: %s", exc)
                step = ll.reopen_failed(self.state, step)
            finally:
                self.hub.forget_if_idle(self)

    async def close(self) -> None:
        if self.link is not None:
            self.hub.drop_link(self)
        ll.close(self.state)
        self.sessions.clear()
        if self._relisten is not None:
            self._relisten.cancel()
        await self._cancel(list(self.runs))


class ListenHub:
    """The shared listens of one front and the budget that caps them (``--max-listens`` counts upstream listens)."""

    def __init__(self, budget: ll.ListenBudget, reclaim: Callable[[], Awaitable[bool]] | None = None) -> None:
        self.budget = budget
        self.ends = {ll.COMPLETE: 0, ll.DROPPED: 0}
        """How the upstream listens of this front ended after their acknowledgement (``ll.end_kind``)."""
        self.reclaim = reclaim
        self.cluster: ListenCluster | None = None
        """Set on a scaled-out instance: one upstream listen per share key across the instances."""
        """Frees the listen of a group whose sessions all linger (no GET stream, nothing subscribed) when the budget
        is spent; True when one was freed."""
        self.groups: dict[str, SharedListen] = {}
        self._serial = itertools.count(1)
        self._members: dict[ListenMember, tuple[str, str]] = {}
        """Session -> (share key, member token) while the session is a member (or joining)."""

    async def update(self, session: ListenMember, filt: dict[str, Any], tighten: bool = True) -> dict[str, Any]:
        """Make the shared listen serve ``filt`` for ``session`` (empty: the session needs none); returns what of
        ``filt`` the upstream acknowledged. FrameError/UpstreamError when it could not (the session keeps its old filter)."""
        found = self._members.get(session)
        if found is None:
            if not filt:
                return {}
            key = ll.share_key(session.state.principal, session.state.identity)
            found = self._members[session] = (key, f"m{next(self._serial)}")
        key, member = found
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = SharedListen(self, key, f"listen-{next(self._serial)}", session)
        before = group.state.members.get(member, {})
        self._set(group, session, member, filt)
        if group.link is not None:
            group.link.changed()
        try:
            async with group.lock:
                acked = await group.apply(tighten)
        except BaseException:
            if filt and not group.state.closed and group.state.members.get(member) == filt:
                self._set(group, session, member, before)  # not served: the session keeps what it had
            raise
        finally:
            self.forget_if_idle(group)
        return ll.granted(filt, acked)

    def _set(self, group: SharedListen, session: ListenMember, member: str, filt: dict[str, Any]) -> None:
        ll.set_member(group.state, member, filt)
        if filt:
            group.sessions[member] = session
            self._members[session] = (group.key, member)
        else:
            group.sessions.pop(member, None)
            self._members.pop(session, None)

    def forget_if_idle(self, group: SharedListen) -> None:
        if group.idle and self.groups.get(group.key) is group:
            del self.groups[group.key]
            self.drop_link(group)

    def drop_link(self, group: SharedListen) -> None:
        if group.link is not None and self.cluster is not None:
            self.cluster.drop(group)

    async def leave(self, session: ListenMember) -> None:
        """The session ended: it needs nothing any more (the last member's leaving cancels the listen)."""
        if session in self._members:
            with contextlib.suppress(Exception):
                await self.update(session, {}, tighten=False)

    def reclaimable(self, idle_since: Callable[[ListenMember], float | None]) -> list[ListenMember]:
        """The sessions of the group that has lingered longest with every member idle (``idle_since`` not None), whose
        listen can be freed; [] when there is none."""
        open_groups = [group for group in self.groups.values() if group.holds_upstream and not group.lock.locked()]
        best = ll.longest_lingering(([idle_since(s) for s in g.sessions.values()], g) for g in open_groups)
        return list(best.sessions.values()) if best is not None else []

    async def aclose(self) -> None:
        for group in list(self.groups.values()):
            await group.close()
        self.groups.clear()
        self._members.clear()
        if self.cluster is not None:
            await self.cluster.aclose()

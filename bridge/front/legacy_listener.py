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

    async def _open(self, step: ll.Open) -> dict[str, Any]:
        budget = self.hub.budget
        try:
            replacing = self.state.current is not None
            if ll.spent(budget, replacing) and self.hub.reclaim is not None:
                await self.hub.reclaim()
            ll.take(budget, replacing)
        except FrameError as exc:
            ll.open_failed(self.state, step.listen_id, exc.code)
            raise
        ack: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(self._run(step.listen_id, step.filter, ack), name=f"legacy-listen:{step.listen_id}")
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

    async def _run(self, listen_id: str, filt: dict[str, Any], ack: asyncio.Future[dict[str, Any]]) -> None:
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

        error: BaseException | None = None
        resp: Message | None = None
        try:
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
        self.hub.ends[kind] += 1
        again = "; re-listening" if reopen is not None else ""
        if kind == ll.COMPLETE:
            log.info("upstream completed listen %s%s", listen_id, again)
        else:  # an abrupt drop: changes may have been lost (the members are told when the next listen opens)
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

    async def leave(self, session: ListenMember) -> None:
        """The session ended: it needs nothing any more (the last member's leaving cancels the listen)."""
        if session in self._members:
            with contextlib.suppress(Exception):
                await self.update(session, {}, tighten=False)

    def reclaimable(self, idle_since: Callable[[ListenMember], float | None]) -> list[ListenMember]:
        """The sessions of the group that has lingered longest with every member idle (``idle_since`` not None), whose
        listen can be freed; [] when there is none."""
        open_groups = [group for group in self.groups.values() if group.state.current is not None and not group.lock.locked()]
        best = ll.longest_lingering(([idle_since(s) for s in g.sessions.values()], g) for g in open_groups)
        return list(best.sessions.values()) if best is not None else []

    async def aclose(self) -> None:
        for group in list(self.groups.values()):
            await group.close()
        self.groups.clear()
        self._members.clear()

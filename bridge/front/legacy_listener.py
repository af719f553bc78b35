"""The shell of a 2025 session's upstream ``subscriptions/listen``: runs the listens the pure plan
(``mcp_eras.bridge.translate.legacy_listen``) asks for, waits for their acknowledgements, times the re-listen backoff."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.jsonrpc import FrameError, Message
from mcp_eras.bridge.translate import errors
from mcp_eras.bridge.translate import legacy_front as lf
from mcp_eras.bridge.translate import legacy_listen as ll
from mcp_eras.bridge.translate import legacy_session as ls

if TYPE_CHECKING:
    from mcp_eras.bridge.front.legacy_runner import LegacyFrontSession

log = logging.getLogger("mcp_bridge.front.legacy")


class UpstreamListener:
    """ONE upstream ``subscriptions/listen`` per session; filter changes replace it make-before-break."""

    def __init__(self, session: LegacyFrontSession, budget: ll.ListenBudget,
                 reclaim: Callable[[], Awaitable[bool]] | None = None) -> None:
        self.session = session
        self.budget = budget
        self.reclaim = reclaim
        """Frees a lingering listen of another session when the budget is spent (True when one was freed)."""
        self.state = ll.ListenState()
        self.lock = asyncio.Lock()
        self.runs: dict[str, asyncio.Task[None]] = {}
        self._relisten: asyncio.Task[None] | None = None

    async def apply(self, filt: dict[str, Any]) -> dict[str, Any]:
        """Make the upstream listen match ``filt``; returns what the upstream acknowledged."""
        async with self.lock:
            step = ll.plan(self.state, filt)
            if isinstance(step, ll.Keep):
                return step.acked
            if isinstance(step, ll.Stop):
                await self._cancel(step.retire)
                return {}
            return await self._open(step)

    async def _open(self, step: ll.Open) -> dict[str, Any]:
        try:
            replacing = self.state.current is not None
            if self.budget.open >= self.budget.max and not replacing and self.reclaim is not None:
                await self.reclaim()
            ll.take(self.budget, replacing)
        except FrameError as exc:
            ll.open_failed(self.state, step.listen_id, exc.code)
            raise
        ack: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(self._run(step.listen_id, step.filter, ack), name=f"legacy-listen:{step.listen_id}")
        task.add_done_callback(lambda _t: ll.give(self.budget))
        self.runs[step.listen_id] = task
        try:
            acked = await asyncio.wait_for(asyncio.shield(ack), self.session.settings.connect_timeout)
        except Exception as exc:
            ll.open_failed(self.state, step.listen_id, exc.code if isinstance(exc, FrameError) else None)
            await self._cancel([step.listen_id])
            raise
        await self._cancel(ll.opened(self.state, step.listen_id, step.filter, acked))
        return acked

    async def _cancel(self, listen_ids: list[str]) -> None:
        for listen_id in listen_ids:
            task = self.runs.pop(listen_id, None)
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def _run(self, listen_id: str, filt: dict[str, Any], ack: asyncio.Future[dict[str, Any]]) -> None:
        session = self.session
        req = lf.listen_request(listen_id, session.state.identity, filt)

        async def emit(msg: Message) -> None:
            if msg.get("method") == lf.ACKNOWLEDGED:
                if not ack.done():
                    ack.set_result(ll.ack_filter(msg))
                    ll.on_ack(self.state, listen_id)
                return
            out = ll.admit(self.state, listen_id, msg)
            if out is None:
                return
            uri = (out.get("params") or {}).get("uri")
            if out["method"] == "notifications/resources/updated" and not ls.wants_update(session.state, uri):
                return
            await session.deliver_unsolicited(out)

        error: BaseException | None = None
        resp: Message | None = None
        try:
            resp = await session.upstream.call(req, session.ctx, emit)
        except asyncio.CancelledError:
            if not ack.done():
                ack.cancel()
            raise
        except Exception as exc:  # noqa: BLE001
            error = exc
        self.runs.pop(listen_id, None)
        if not ack.done():
            err = resp.get("error") if resp is not None else None
            if isinstance(err, dict):
                ack.set_exception(FrameError(err.get("code", errors.INTERNAL_ERROR), str(err.get("message", "listen failed"))))
            else:
                ack.set_exception(UpstreamError(f"upstream listen ended before its acknowledgement: {error or resp}"))
            ack.exception()  # mark retrieved
            return
        reopen = ll.ended(self.state, listen_id)
        if reopen is not None:
            log.info("upstream listen %s ended (%s); re-listening", listen_id, error or "closed")
            self._relisten = asyncio.create_task(self._reopen(reopen))

    async def _reopen(self, step: ll.Reopen | None) -> None:
        while step is not None:
            await asyncio.sleep(step.delay)
            try:
                async with self.lock:
                    plan = ll.reopen(self.state, step.filter)
                    if plan is None:
                        return
                    acked = await self._open(plan)
            except Exception as exc:  # noqa: BLE001
                log.warning("re-listen failed: %s", exc)
                step = ll.reopen_failed(self.state, step.filter)
                continue
            # Events may have been lost while no listen was open: invalidate generously.
            for note in ll.invalidations(acked):
                await self.session.deliver_unsolicited(note)
            return

    async def close(self) -> None:
        ll.close(self.state)
        if self._relisten is not None:
            self._relisten.cancel()
        await self._cancel(list(self.runs))

"""The shell of one 2025 session (transport independent): executes what the pure session machine
(``mcp_eras.bridge.translate.legacy_client.session``) and round driver (``mcp_eras.bridge.translate.legacy_client.mrtr``) decide.

It owns the asyncio side only: one task per client request (cancelled by ``notifications/cancelled``), one
future per bridge->client question, its membership of a shared upstream listen (``ListenHub``) and the per-question
timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream, UpstreamError
from mcp_eras.bridge.front.legacy_listener import ListenHub
from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate.eras import META_LOG_LEVEL
from mcp_eras.bridge.translate.jsonrpc import FrameError, Message
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import mrtr
from mcp_eras.bridge.translate.legacy_client import session as ls
from mcp_eras.bridge.translate.legacy_client.routing import NoteTo, route_note
from mcp_eras.bridge.translate.mrtr_steps import AskClient, Finish, Resume, Step, ToClient

log = logging.getLogger("mcp_bridge.front.legacy")

Send = Callable[[Message], Awaitable[None]]


class LegacyFrontSession:
    """A 2025 client's session: the machine's state plus the tasks and futures that serve it."""

    def __init__(self, upstream: Upstream, settings: Settings, state: ls.SessionState, ctx: CallContext, deliver: Send,
                 listens: ListenHub) -> None:
        self.upstream = upstream
        self.settings = settings
        self.state = state
        self.ctx = ctx
        self._deliver = deliver
        self.listens = listens
        self.tasks: dict[str, asyncio.Task[Message]] = {}
        self.questions: dict[str, asyncio.Future[Message]] = {}
        """Bridge->client requests waiting for the client, by their (bridge-minted) id."""
        self._sub_lock = asyncio.Lock()

    @property
    def closed(self) -> bool:
        return self.state.closed

    # --- lifecycle -------------------------------------------------------------------------------

    def expired(self, now: float) -> bool:
        return ls.expired(self.state, now)

    async def start(self) -> None:
        """Open the upstream listen if the client can already receive (stdio: before the initialize result goes out)."""
        await self._follow(ls.listen_filter(self.state))

    async def set_streaming(self, streaming: bool) -> None:
        """A GET stream connected, or the last one left: open or drop the list_changed part of the listen."""
        async with self._sub_lock:
            await self._follow(ls.set_streaming(self.state, streaming), tighten=False)

    async def _follow(self, filt: dict[str, Any], tighten: bool = True) -> None:
        if self.state.closed:
            return
        try:
            await self.listens.update(self, filt, tighten)
        except Exception as exc:  # noqa: BLE001 - a session without change notifications still works
            log.warning("session %s: upstream listen unavailable: %s", self.state.session_id, exc)

    async def close(self) -> None:
        if self.state.closed:
            return
        ls.close(self.state)
        for task in list(self.tasks.values()):
            task.cancel()
        for fut in self.questions.values():
            if not fut.done():
                fut.cancel()
        await self.listens.leave(self)

    async def deliver_unsolicited(self, msg: Message) -> None:
        if not self.state.closed:
            await self._deliver(msg)

    # --- client frames ---------------------------------------------------------------------------

    def begin(self, msg: Message, send: Send, ctx: CallContext, settle: Callable[[Message], None] | None = None,
              ended: Callable[[asyncio.Task[Message]], None] | None = None) -> asyncio.Task[Message] | ls.Refusal:
        """Run one client request as a task (tracked for ``notifications/cancelled``); the refusal when its id was
        used before or is too long to remember (``ls.start_request``).

        ``settle``: called with the response from inside the task, as soon as there is one. A done callback runs a
        loop iteration after the task ends; the answer is on the critical path, the bookkeeping (``done``) is not.
        ``ended``: the caller's own done callback, run after the session's (one callback per task)."""
        key = ls.start_request(self.state, msg["id"])
        if isinstance(key, ls.Refusal):
            return key
        # (The loop's own create_task: asyncio.create_task is a Python wrapper around it, and a name per request, made
        # by formatting its id, is paid on every request for a debugger's sake.)
        task = asyncio.get_running_loop().create_task(self.run_request(msg, ctx, send, settle))
        self.tasks[key] = task

        def done(t: asyncio.Task[Message]) -> None:
            try:
                self.tasks.pop(key, None)
                ls.finish(self.state, msg["id"])
            finally:
                if ended is not None:
                    ended(t)

        task.add_done_callback(done)
        return task

    def on_response(self, msg: Message) -> bool:
        out_id = ls.on_response(self.state, msg)
        fut = self.questions.get(out_id) if out_id is not None else None
        if fut is None or fut.done():
            return False
        fut.set_result(msg)
        return True

    async def on_notification(self, msg: Message) -> None:
        cancel = ls.on_notification(self.state, msg)
        if isinstance(cancel, ls.RootsChanged):
            try:
                await self.upstream.roots_changed(dataclasses.replace(self.ctx, identity=lf.request_meta(self.state.identity)))
            except Exception as exc:  # noqa: BLE001 - a notification has no answer to carry an error
                log.warning("session %s: roots change not passed upstream: %s", self.state.session_id, exc)
            return
        if cancel is None:
            return
        task = self.tasks.get(cancel.request)
        if task is not None and not task.done():
            task.cancel()
        for out_id in cancel.questions:
            fut = self.questions.get(out_id)
            if fut is not None and not fut.done():
                fut.cancel()

    # --- requests ----------------------------------------------------------------------------------

    async def run_request(self, msg: Message, ctx: CallContext, send: Send,
                          settle: Callable[[Message], None] | None = None) -> Message:
        """The client request's response (``settle``: see ``begin``)."""
        try:
            decision = ls.on_request(self.state, msg)
            if isinstance(decision, ls.Answer):
                response = decision.response
            elif isinstance(decision, ls.ChangeSubscriptions):
                response = await self._subscription(msg)
            else:
                response = await self._forward(decision, ctx, send)
        except UpstreamError as exc:
            response = jsonrpc.upstream_error(msg["id"], exc)
        if settle is not None:
            settle(response)
        return response

    async def _subscription(self, msg: Message) -> Message:
        async with self._sub_lock:
            # Decided again under the lock: a concurrent (un)subscribe may have changed the set meanwhile.
            change = ls.on_request(self.state, msg)
            if isinstance(change, ls.Answer):
                return change.response
            assert isinstance(change, ls.ChangeSubscriptions)
            try:
                acked = await self.listens.update(self, change.filter, tighten=not change.subscribe)
            except FrameError as exc:
                return ls.subscription_applied(self.state, msg["id"], change, None, exc)
            except Exception as exc:  # noqa: BLE001
                return ls.subscription_applied(self.state, msg["id"], change, None, FrameError(errors.INTERNAL_ERROR, str(exc)))
            return ls.subscription_applied(self.state, msg["id"], change, acked)

    def _emitter(self, send: Send, level: str | None) -> Callable[[Message], Awaitable[None]]:
        async def emit(note: Message) -> None:
            routed = route_note(self.state, level, note)
            if routed is None:
                return
            to, frame = routed
            await (send(frame) if to is NoteTo.REQUEST else self.deliver_unsolicited(frame))

        return emit

    async def _forward(self, forward: ls.Forward, ctx: CallContext, send: Send) -> Message:
        rounds = forward.rounds
        meta = forward.canonical["params"].get("_meta") or {}
        emit = self._emitter(send, meta.get(META_LOG_LEVEL))
        try:
            resp = await self.upstream.call(forward.canonical, ctx, emit)
            steps = self._after(rounds, resp)
            while True:
                for step in steps:
                    if isinstance(step, ToClient):
                        await send(step.frame)
                    elif isinstance(step, AskClient):
                        answers = await asyncio.gather(*(self._ask(q, send) for q in step.inputs.values()))
                        steps = mrtr.on_answers(rounds, dict(zip(step.inputs, answers, strict=True)))
                        break
                    elif isinstance(step, Resume):
                        if step.delay:
                            await asyncio.sleep(step.delay)
                        steps = self._after(rounds, await self.upstream.call(step.request, ctx, emit))
                        break
                    elif isinstance(step, Finish):
                        return step.response
                else:
                    raise AssertionError("the round driver's steps end with AskClient, Resume or Finish")
        finally:
            if "progressToken" in meta:
                ls.forget_progress(self.state, meta["progressToken"])

    def _after(self, rounds: mrtr.RoundsState, response: Message) -> list[Step]:
        """The round driver's steps after an upstream response (ids for the questions minted by the session)."""
        rid = rounds.legacy_id
        return mrtr.on_upstream(rounds, response, self.state.identity.client_capabilities,
                                lambda: ls.ask(self.state, rid), lambda: str(uuid.uuid4()))

    async def _ask(self, question: Message, send: Send) -> Message:
        """Send one bridge->client request on the request's stream and wait for the client's answer."""
        out_id = question["id"]
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self.questions[out_id] = fut
        try:
            await send(question)
            try:
                answer = await asyncio.wait_for(fut, self.settings.request_timeout)
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError  # the answer raced the client's cancel: the cancel wins
                return answer
            except TimeoutError:
                with contextlib.suppress(Exception):
                    await send(mrtr.cancel_notification(out_id, "timed out"))
                return mrtr.unanswered(out_id)
        except asyncio.CancelledError:
            # The originating request was cancelled: withdraw our request from the client.
            with contextlib.suppress(Exception):
                await asyncio.shield(send(mrtr.cancel_notification(out_id, "the originating request was cancelled")))
            raise
        finally:
            self.questions.pop(out_id, None)


async def start_session(upstream: Upstream, settings: Settings, msg: Message, ctx: CallContext, deliver: Send,
                        listens: ListenHub, session_id: str | None = None,
                        streaming: bool = False) -> tuple[LegacyFrontSession | None, Message]:
    """Answer ``initialize`` locally from the upstream's discover result; returns (session or None, response)."""
    rid = msg["id"]
    refusal = ls.refuse_id(rid)
    if refusal is not None:
        return None, refusal.response(rid)
    try:
        identity = lf.parse_initialize(msg.get("params"))
        await upstream.start()
        # The session's own requests carry this identity: a cold upstream opens its first session for it.
        discover = await upstream.discover(dataclasses.replace(ctx, identity=lf.request_meta(identity)))
        state, result = ls.open_session(identity, discover, settings.bridge_info(), now=time.monotonic(),
                                        idle_timeout=settings.session_idle_timeout, session_id=session_id,
                                        principal=ctx.principal, max_rounds=settings.mrtr_max_rounds, streaming=streaming)
    except FrameError as exc:
        return None, jsonrpc.error_response(rid, exc.code, exc.message, exc.data)
    except UpstreamError as exc:
        return None, jsonrpc.upstream_unavailable(rid, exc)
    session = LegacyFrontSession(upstream, settings, state, ctx, deliver, listens)
    ls.claim_id(state, rid)
    await session.start()
    return session, jsonrpc.result_response(rid, result)


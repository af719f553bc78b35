"""The 2025-11-25 Streamable HTTP front (2025-11-25 basic/transports.mdx §Streamable HTTP): sessions named by
``Mcp-Session-Id``, one SSE or JSON answer per POST, the GET stream, ``Last-Event-ID`` replay, DELETE.

Moves bytes and runs the session reaper; the session rules are ``mcp_eras.bridge.translate.legacy_client.session``'s, the
per-session tasks ``mcp_eras.bridge.front.legacy_runner``'s, the replayable streams ``mcp_eras.bridge.front.event_stream``'s.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import dataclasses
import itertools
import logging
import secrets
import sys
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Upstream
from mcp_eras.bridge.front.event_stream import PROCESS_LEDGER, EventStream
from mcp_eras.bridge.front.http import headers_context, json_message
from mcp_eras.bridge.front.json_body import JSONBody
from mcp_eras.bridge.front.legacy_listener import ListenHub
from mcp_eras.bridge.front.legacy_runner import LegacyFrontSession, start_session
from mcp_eras.bridge.front.sse_response import SSEResponse
from mcp_eras.bridge.translate import errors, jsonrpc
from mcp_eras.bridge.translate.eras import LEGACY, TRACE_META_KEYS
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId
from mcp_eras.bridge.translate.legacy_client import listen as ll
from mcp_eras.bridge.translate.legacy_client import session as ls
from mcp_eras.bridge.translate.legacy_client import streams as replay
from mcp_eras.bridge.translate.legacy_client.streams import (
    GET_KEY,
    NOT_ACCEPTABLE,
    PRIME_HOLD,
    REPLAY_SESSION_BYTES,
    SSE_RETRY_MS,
    SWEEP_MIN,
    GetWatch,
    ReplayLedger,
    accepts_event_stream,
    failed_request,
    lost_answer,
    may_run_long,
    resume_target,
    shed,
    sweep,
)
from mcp_eras.bridge.translate.sse import KEEPALIVE, SSE_HEADERS, sse_event, sse_priming

log = logging.getLogger("mcp_bridge.front.legacy")

TRIM_DELAY = 1.0
"""Seconds after a session ends before the freed heap is handed back to the system (``_trim``): sessions that end
together share one trim."""


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim`` (None elsewhere). Python frees a session's objects when it ends, but glibc keeps the
    freed heap pages of large objects (answers, request bodies) mapped: measured, 1 MiB answers left the process
    5 MB above its start after their session ended; ``malloc_trim(0)`` returns the free pages (MADV_DONTNEED)."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


_TRIM = _malloc_trim() if sys.platform.startswith("linux") else None

TRACE_FIELDS = frozenset(TRACE_META_KEYS)


class HttpSessionSlot:
    """One session id on the HTTP front: the session and its replayable streams (GET stream ``g``, POSTs ``p<n>``)."""

    def __init__(self, sid: str, settings: Settings) -> None:
        self.sid = sid
        self.settings = settings
        self.session: LegacyFrontSession | None = None
        self.principal: str | None = None
        self.watch = GetWatch()
        """Whether ``get_stream`` is read: the session's listen follows it (lingering ``legacy_listen_linger`` after)."""
        self.linger_timer: asyncio.TimerHandle | None = None
        self.ledger = ReplayLedger(REPLAY_SESSION_BYTES)
        """The session's events kept for replay, all streams (``REPLAY_SESSION_BYTES``; the process's: ``PROCESS_LEDGER``)."""
        self._ledgers = (self.ledger, PROCESS_LEDGER)
        self.get_stream = EventStream(GET_KEY, settings.event_retention, self._ledgers)
        self.streams: dict[str, replay.Kept] = {GET_KEY: self.get_stream}
        """Live streams, and ended POST streams nobody reads kept compact for replay (``replay.EndedStream``)."""
        self.get_seen = 0
        self._keys = itertools.count(1)
        self._sweep_at = SWEEP_MIN
        self._ctx: CallContext | None = None

    def context(self, headers: Mapping[str, str]) -> CallContext:
        """A request's ``CallContext`` (``headers_context``): the session's last one again when the request carries
        the same ``Authorization`` and no trace fields, as a session's requests usually do (it is frozen)."""
        ctx = self._ctx
        if ctx is not None and headers.get("authorization") == ctx.authorization and TRACE_FIELDS.isdisjoint(headers):
            return ctx
        # (the session's id goes with its requests: telemetry's mcp.session.id, issue #32)
        fresh = dataclasses.replace(headers_context(headers, LEGACY), session_id=self.sid)
        if not fresh.trace:
            self._ctx = fresh
        return fresh

    def new_stream(self) -> EventStream:
        if len(self.streams) >= self._sweep_at:  # (``streams.sweep``: when the table has doubled since the last one)
            self._sweep_at = sweep(self.streams, time.monotonic())
        if len(self.streams) > replay.POST_STREAMS_KEPT:
            shed(self.streams, replay.POST_STREAMS_KEPT)
        stream = EventStream(f"p{next(self._keys)}", self.settings.event_retention, self._ledgers)
        self.streams[stream.key] = stream
        return stream

    def forget(self, stream: EventStream) -> None:
        """A POST stream nobody will resume (answered as JSON, or refused): its events leave the ledgers now."""
        self.streams.pop(stream.key, None)
        stream.discard()

    async def deliver(self, msg: Message) -> None:
        self.get_stream.push(msg)

    async def close(self) -> None:
        if self.linger_timer is not None:
            self.linger_timer.cancel()
        session, self.session = self.session, None  # (the session holds ``deliver``: no cycle left for the collector)
        if session is not None:
            await session.close()
        for stream in self.streams.values():
            if isinstance(stream, EventStream):
                stream.close()
            stream.discard()  # the session is over: nothing of it is resumable, its kept events are freed now


class LegacyHttpFront:
    """2025-11-25 Streamable HTTP front over a canonical upstream (sessions, GET stream, DELETE)."""

    def __init__(self, upstream: Upstream, settings: Settings) -> None:
        self.upstream = upstream
        self.settings = settings
        self.sessions: dict[str, HttpSessionSlot] = {}
        self.count = ls.SessionCount()
        """The sessions per principal and the refusals at a cap, by limit name (exported by ``status``)."""
        self.listens = ListenHub(ll.ListenBudget(settings.legacy_listens_max), self._reclaim)
        """Upstream listens, one shared by the sessions of a principal and client identity (``--max-listens`` caps them)."""
        self._reaper: asyncio.Task[None] | None = None
        self._trim: asyncio.TimerHandle | None = None

    def status(self) -> dict[str, Any]:
        budget = self.listens.budget
        return {"sessions": len(self.sessions), "listens": budget.open,
                "refused": {**self.count.refused, **({ll.LIMIT: budget.refused} if budget.refused else {})}}

    # --- helpers ---------------------------------------------------------------------------------

    def _add(self, slot: HttpSessionSlot) -> None:
        self.sessions[slot.sid] = slot
        self.count.opened(slot.principal)

    def _drop(self, slot: HttpSessionSlot) -> bool:
        if self.sessions.pop(slot.sid, None) is None:
            return False
        self.count.closed(slot.principal)
        if _TRIM is not None and self._trim is None:
            self._trim = asyncio.get_running_loop().call_later(TRIM_DELAY, self._trimmed)
        return True

    def _trimmed(self) -> None:
        self._trim = None
        if _TRIM is not None:
            _TRIM(0)

    def _ensure_reaper(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.create_task(self._reap(), name="legacy-session-reaper")

    async def _reap(self) -> None:
        interval = ls.reap_interval(self.settings.session_idle_timeout)
        while self.sessions:
            await asyncio.sleep(interval)
            await self._reap_once(time.monotonic())

    async def _reap_once(self, now: float) -> None:
        """End the expired sessions. (A function of its own: a loop variable in ``_reap`` held the last session it
        looked at, and everything the session kept, through the sleep that follows.)"""
        for slot in [s for s in self.sessions.values() if s.session is not None and s.session.expired(now)]:
            log.info("session %s expired", slot.sid)
            self._drop(slot)
            await slot.close()

    def _lookup(self, headers: Mapping[str, str], rid: RequestId | None, ctx: CallContext | None = None,
                found: tuple[str | None, HttpSessionSlot | None] | None = None) -> HttpSessionSlot | Response:
        """``found``: (session id header, its slot) when the caller looked them up already."""
        if found is None:
            sid = headers.get("mcp-session-id")
            slot = self.sessions.get(sid) if sid else None
        else:
            sid, slot = found
        state = slot.session.state if slot is not None and slot.session is not None else None
        principal = (ctx or headers_context(headers, LEGACY)).principal
        refusal = ls.admit_http(state, has_session_header=bool(sid), principal=principal,
                                protocol_version=headers.get("mcp-protocol-version"), now=time.monotonic())
        if refusal is None:
            assert slot is not None
            return slot
        if refusal.expire and slot is not None and self._drop(slot):
            asyncio.get_running_loop().create_task(slot.close())
        return json_message(refusal.response(rid), refusal.status)

    # --- POST --------------------------------------------------------------------------------------

    async def handle_post(self, request: Request, msg: Message) -> Response:
        return await self.handle_post_headers(request.headers, msg)

    async def handle_post_headers(self, headers: Mapping[str, str], msg: Message) -> Response:
        """A POST whose body parsed as ``msg``; ``headers``: its header fields by lower-case name (all this
        front reads of the request: the HTTP shortcut passes the index it built, no ``Request``)."""
        is_request = jsonrpc.is_request(msg)
        rid = msg.get("id") if is_request else None
        if is_request and msg.get("method") == "initialize":
            return await self._initialize(headers, msg)
        sid = headers.get("mcp-session-id")
        slot = self.sessions.get(sid) if sid else None
        ctx = slot.context(headers) if slot is not None else headers_context(headers, LEGACY)
        found = self._lookup(headers, rid, ctx, (sid, slot))
        if isinstance(found, Response):
            return found
        slot = found
        session = slot.session
        assert session is not None
        if jsonrpc.is_response(msg):
            session.on_response(msg)
            return Response(status_code=errors.LEGACY_ACCEPTED_STATUS)
        if jsonrpc.is_notification(msg):
            await session.on_notification(msg)
            return Response(status_code=errors.LEGACY_ACCEPTED_STATUS)
        stream = slot.new_stream()
        stream.request_id = msg["id"]

        async def send(out: Message) -> None:
            stream.push(out)

        def answered(response: Message) -> None:
            stream.push(response)
            stream.close()
            if stream.served:  # (its SSE response has ended: nobody reads it, it is kept compact)
                replay.archive(slot.streams, stream)

        def finish(t: asyncio.Task[Message]) -> None:
            # A response was pushed from the task itself (``answered``); a cancelled or failed request ends here.
            try:
                if not t.cancelled() and t.exception() is not None:
                    log.error("request %r failed: %r", msg["id"], t.exception())
                    stream.push(failed_request(msg["id"]))
            finally:
                stream.close()
                if stream.served:
                    replay.archive(slot.streams, stream)

        task = session.begin(msg, send, ctx, answered, finish)
        if isinstance(task, ls.Refusal):
            slot.forget(stream)
            return json_message(task.response(msg["id"]), task.status)
        if may_run_long(msg["method"]):
            # Calls that may run long or need client input: a call answered within PRIME_HOLD, with nothing
            # before its answer, is answered as JSON; anything else answers on SSE, primed with an event id so a
            # dropped connection can resume with Last-Event-ID (2025: disconnection is not a cancel). The request's
            # task runs first: its upstream call is under way while this waits.
            if not stream.closed:
                await stream.changed(PRIME_HOLD)
            if not stream.one_answer():
                return self._sse(stream, 0, prime=True, kept_in=slot.streams)
        else:
            # Otherwise choose JSON vs SSE lazily: SSE only when something precedes the final response.
            await stream.wait_started()
        if stream.one_answer():
            body = stream.single_answer(msg["id"])
            slot.forget(stream)
            return JSONBody(body, 200)
        return self._sse(stream, 0, kept_in=slot.streams)

    def _sse(self, stream: EventStream, after: int, prime: bool = False, exclusive: bool = False,
             slot: HttpSessionSlot | None = None, kept_in: dict[str, replay.Kept] | None = None) -> StreamingResponse:
        """``slot``: this is the session's GET stream; its listen follows whether any GET streams it. ``kept_in``: a
        POST stream's table, where it is kept compact once it has ended and its last reader is gone."""
        keepalive = self.settings.sse_keepalive
        token = stream.take_over() if exclusive else None
        key = stream.key

        async def body() -> AsyncIterator[bytes]:
            # Everything the stream holds goes out as one chunk; the chunk after which the stream has ended
            # is marked final, so the HTTP shortcut ends the response in the same write.
            stream.consumers += 1
            try:
                lead = b""
                if prime:
                    # The POST's handler has held the priming already (PRIME_HOLD): it goes out now.
                    lead = sse_priming(f"{key}.{after}", SSE_RETRY_MS)
                    if not stream.events:
                        yield lead
                        lead = b""
                if token is None and stream.closed and stream.has_after(after):
                    # The call has ended (the usual case of a call answered within the hold): what follows ``after``
                    # is the whole rest of the stream, one chunk and the last (as ``batches`` would give it).
                    response.final = True
                    yield lead + stream.frames(stream.after(after))
                    return
                batches = stream.batches(after, keepalive, token)
                try:
                    async for batch in batches:
                        if batch is None:
                            yield KEEPALIVE
                            continue
                        response.final = stream.ended(token)
                        yield lead + stream.frames(batch)
                        lead = b""
                finally:
                    # Closed here, not by the loop's finalizer hook (a wake-up and a task per response).
                    await batches.aclose()
            finally:
                stream.consumers -= 1
                stream.served = True
                if kept_in is not None:
                    replay.archive(kept_in, stream)
                if slot is not None:
                    if slot.watch.detach():
                        self._linger(slot)

        response = SSEResponse(body(), media_type="text/event-stream", headers=SSE_HEADERS)
        return response

    async def _initialize(self, headers: Mapping[str, str], msg: Message) -> Response:
        ctx = headers_context(headers, LEGACY)
        refusal = ls.admit_initialize(headers.get("mcp-protocol-version")) or self.count.admit(
            ctx.principal, len(self.sessions), max_total=self.settings.legacy_sessions_max,
            max_per_principal=self.settings.legacy_sessions_per_principal)
        if refusal is not None:
            return json_message(refusal.response(msg["id"]), refusal.status)
        sid = secrets.token_urlsafe(24)
        slot = HttpSessionSlot(sid, self.settings)
        slot.principal = ctx.principal
        # The listen opens with the session (list_changed promised in the result), and lingers until a GET stream
        # takes over or legacy_listen_linger passes.
        session, resp = await start_session(self.upstream, self.settings, msg, ctx, slot.deliver, self.listens, sid,
                                            streaming=True)
        if session is None:
            return json_message(resp)
        slot.session = session
        self._add(slot)
        self._linger(slot)
        self._ensure_reaper()
        return json_message(resp, headers={"Mcp-Session-Id": sid})

    async def adopt(self, sid: str, state: ls.SessionState, ctx: CallContext, first_event: int) -> None:
        """Serve a session that another bridge instance opened and lost (scale-out: ``mcp_eras.bridge.scaleout.sessions``),
        from its stored machine state. GET-stream ids continue above ``first_event``, so a Last-Event-ID from
        the old instance replays everything this one has for the session."""
        slot = HttpSessionSlot(sid, self.settings)
        slot.principal = state.principal
        slot.get_stream.seq = slot.get_seen = first_event
        slot.session = LegacyFrontSession(self.upstream, self.settings, state, ctx, slot.deliver, self.listens)
        await slot.session.start()
        self._add(slot)
        self._linger(slot)
        self._ensure_reaper()

    # --- GET ---------------------------------------------------------------------------------------

    async def handle_get(self, request: Request) -> Response:
        if not accepts_event_stream(request.headers.get("accept", "")):
            return json_message(NOT_ACCEPTABLE, errors.LEGACY_NOT_ACCEPTABLE_STATUS)
        found = self._lookup(request.headers, None)
        if isinstance(found, Response):
            return found
        slot = found
        resume = resume_target(request.headers.get("last-event-id"), slot.streams)
        if resume is not None and resume.post:
            # Resume a POST stream: replay what followed the client's last event (it ends after its response), or,
            # when that is no longer kept (the replay window), an error for the request instead of its answer.
            stream = slot.streams[resume.key]
            if stream.lost_after(resume.after):
                lost = sse_event(lost_answer(stream.request_id, stream.retention), f"{stream.key}.{stream.seq}")
                return SSEResponse(_once(lost), media_type="text/event-stream", headers=SSE_HEADERS)
            if isinstance(stream, replay.EndedStream):
                return SSEResponse(_once(stream.replay(resume.after)), media_type="text/event-stream",
                                   headers=SSE_HEADERS)
            return self._sse(stream, resume.after, kept_in=slot.streams)
        await self._attach(slot)
        if resume is not None:
            return self._sse(slot.get_stream, resume.after, exclusive=True, slot=slot)
        # Unknown or expired stream: start a fresh GET stream (allowed). One consumer per GET stream (each message
        # goes to exactly one stream): a new GET replaces an older one, which is usually a connection the client
        # already gave up on. The first GET of a session receives what was queued since initialize; later ones
        # start now.
        after = slot.get_seen
        slot.get_seen = slot.get_stream.seq
        return self._sse(slot.get_stream, after, exclusive=True, slot=slot)

    @staticmethod
    async def _attach(slot: HttpSessionSlot) -> None:
        """A GET stream is about to flow: the session's listen carries list_changed (opened again, and acknowledged
        upstream, before the stream starts, if it was dropped)."""
        first = slot.watch.attach()
        if slot.linger_timer is not None:
            slot.linger_timer.cancel()
            slot.linger_timer = None
        if first and slot.session is not None:
            await slot.session.set_streaming(True)

    def _linger(self, slot: HttpSessionSlot) -> None:
        """No GET stream: keep the listen for legacy_listen_linger seconds, then only subscriptions keep it."""
        loop = asyncio.get_running_loop()
        slot.watch.linger(loop.time())
        if slot.linger_timer is not None:
            slot.linger_timer.cancel()
        slot.linger_timer = loop.call_later(self.settings.legacy_listen_linger,
                                            lambda: loop.create_task(self._stop_lingering(slot)))

    @staticmethod
    async def _stop_lingering(slot: HttpSessionSlot) -> None:
        if slot.linger_timer is not None:
            slot.linger_timer.cancel()
            slot.linger_timer = None
        if slot.session is not None and slot.watch.stop_lingering():
            await slot.session.set_streaming(False)

    async def _reclaim(self) -> bool:
        """The listen budget is spent: end the shared listen whose sessions have all lingered longest (no GET stream,
        nothing subscribed), so idle sessions never keep a client that is here now from its notifications."""

        def idle_since(session: LegacyFrontSession) -> float | None:
            slot = self.sessions.get(session.state.session_id or "")
            return slot.watch.idle_since(bool(session.state.subscribed)) if slot is not None else None

        members = self.listens.reclaimable(idle_since)
        for session in members:
            slot = self.sessions.get(session.state.session_id or "")
            if slot is not None:
                await self._stop_lingering(slot)
        return bool(members)

    # --- DELETE --------------------------------------------------------------------------------------

    async def handle_delete(self, request: Request) -> Response:
        found = self._lookup(request.headers, None)
        if isinstance(found, Response):
            return found
        self._drop(found)
        await found.close()
        return Response(status_code=200)

    async def aclose(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
        if self._trim is not None:
            self._trim.cancel()
        sessions = list(self.sessions.values())
        for slot in sessions:
            self._drop(slot)
            await slot.close()
        await self.listens.aclose()


async def _once(chunk: bytes) -> AsyncIterator[bytes]:
    yield chunk

"""Replayable SSE event streams of the 2025 Streamable HTTP front (one per POST, one GET stream per session).

What a stream keeps and replays is pure (``mcp_eras.bridge.translate.legacy_client.streams.ReplayBuffer``); this
shell adds the clock and the waiting. 2025-11-25 basic/transports.mdx §Multiple Connections: each message goes to one
stream only, so a session's GET stream has one consumer at a time (a newer GET takes it over).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

from mcp_eras.bridge import fifo_timers
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.legacy_client.streams import REPLAY_TOTAL_BYTES, ReplayBuffer, ReplayLedger, parse_event_id

__all__ = ["PROCESS_LEDGER", "EventStream", "parse_event_id"]

PROCESS_LEDGER = ReplayLedger(REPLAY_TOTAL_BYTES)
"""The events every 2025 session of this process keeps for replay, within ``REPLAY_TOTAL_BYTES``."""


class EventStream(ReplayBuffer):
    """A ``ReplayBuffer`` its consumers can wait on: ids ``<key>.<seq>``, replayable within the retention window."""

    def __init__(self, key: str, retention: float, ledgers: tuple[ReplayLedger, ...] = ()) -> None:
        super().__init__(key, retention, ledgers)
        self.owner: object | None = None
        """Exclusive streams (a session's GET stream): the newest consumer takes over, older ones end."""
        self._waiters: list[asyncio.Future[bool]] = []
        self.served = False
        """An SSE response of this stream has ended (a POST stream is kept compact once it has ended and has no reader:
        ``legacy_http``; not before its response first ran, which would find it emptied)."""
        """Consumers waiting for a change (a push, the close, a take-over): one future each, no task."""
        self.on_push: Callable[[int, Message], None] | None = None
        """Called with each event's sequence and message as it is pushed (scale-out: ``mcp_eras.bridge.scaleout.sessions``
        keeps a session's GET-stream events in the shared store for replay on another instance)."""

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(True)

    async def changed(self, timeout: float | None = None) -> bool:
        """Until the next change (True), or ``timeout`` seconds without one (False). A future and a shared timer
        (``fifo_timers``: a 2025 call's hold waits here on every call): ``asyncio.wait_for`` would wrap the wait in a
        task of its own on every wait."""
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self._waiters.append(waiter)
        timer = fifo_timers.call_later(loop, timeout, _expire, waiter) if timeout is not None else None
        try:
            return await waiter
        finally:
            if timer is not None:
                timer.cancel()
            if waiter.cancelled() or not waiter.done() or not waiter.result():
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)  # timed out or cancelled: not left for the next push

    def push(self, msg: Message) -> None:
        seq = self.append(msg, time.monotonic())
        if seq is None:
            return
        if self.on_push is not None:
            self.on_push(seq, msg)
        self._wake()

    def close(self) -> None:
        if self.end(time.monotonic()):
            self._wake()

    async def wait_started(self) -> None:
        """Until the first event is pushed or the stream closes."""
        while not self.events and not self.closed:
            await self.changed()

    def take_over(self) -> object:
        token = object()
        self.owner = token
        self._wake()
        return token

    def ended(self, token: object | None) -> bool:
        """Nothing more will follow what was already taken: closed, or (exclusive) taken over."""
        return self.closed or (token is not None and self.owner is not token)

    async def batches(self, after: int, keepalive: float, token: object | None = None
                      ) -> AsyncIterator[list[tuple[int, bytes]] | None]:
        """Every event with seq > ``after`` that is there, in one list per wake-up; ``None`` after ``keepalive``
        seconds of silence; ends when closed and drained (or, for an exclusive consumer holding ``token``, when
        a newer consumer took the stream over). After a batch, ``ended(token)`` tells whether it was the last."""
        cursor = after
        while True:
            if token is not None and self.owner is not token:
                return
            if self.has_after(cursor):
                batch = self.after(cursor)
                cursor = batch[-1][0]
                yield batch
                continue
            if self.closed:
                return
            if not await self.changed(keepalive):
                yield None

    async def iterate(self, after: int, keepalive: float, token: object | None = None
                      ) -> AsyncIterator[tuple[int, bytes] | None]:
        """Events with seq > ``after`` one by one (``batches``, flattened)."""
        async for batch in self.batches(after, keepalive, token):
            if batch is None:
                yield None
                continue
            for item in batch:
                yield item


def _expire(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)

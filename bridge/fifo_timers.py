"""Timers of one length, sharing one loop timer: ``call_later(loop, delay, callback, arg)``, ``timer.cancel()``.

A loop timer per relayed call (``loop.call_later`` and its ``cancel``: a call's deadline, a wait with a time limit)
costs about 0.9 µs on uvloop and 1.0 µs on asyncio's loop, in a loop that also turns once per call; these cost 0.6 µs
and nothing measurable (``docs/performance.md``, pass 8). Timers of the same
length fire in the order they were set, so they queue per (loop, length) in that order, and the queue's one loop
timer is set for its oldest. A cancelled timer leaves the queue at once; when the loop timer fires it runs every
timer that is due and is set again for the next one (a stream of short waits sets it about once per timer length,
not once per wait).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class Timer:
    """``Timer(loop, delay, callback, arg)``: ``callback(arg)`` is called ``delay`` seconds from now (``call_later``)."""

    __slots__ = ("due", "callback", "arg", "_queue")

    def __init__(self, loop: asyncio.AbstractEventLoop, delay: float, callback: Callable[[Any], object], arg: Any) -> None:
        queue = _QUEUES.get((id(loop), delay))
        if queue is None or queue.loop is not loop:
            queue = _new_queue(loop, delay)
        self.due, self.callback, self.arg, self._queue = loop.time() + delay, callback, arg, queue
        queue.pending[self] = None
        if queue.handle is None:
            queue.handle = loop.call_at(self.due, queue.fire)

    def cancel(self) -> None:
        """It will not run (nothing happens if it ran already)."""
        self._queue.pending.pop(self, None)


class _Queue:
    """The pending timers of one length on one loop, oldest first, and the one loop timer for the oldest."""

    __slots__ = ("loop", "pending", "handle")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pending: dict[Timer, None] = {}
        """Insertion-ordered: the oldest (the next due) first."""
        self.handle: asyncio.TimerHandle | None = None

    def fire(self) -> None:
        self.handle = None
        now = self.loop.time()
        pending = self.pending
        while pending:
            oldest = next(iter(pending))
            if oldest.due > now:
                self.handle = self.loop.call_at(oldest.due, self.fire)
                return
            del pending[oldest]
            try:
                oldest.callback(oldest.arg)
            except Exception as exc:  # noqa: BLE001 - as the loop treats a failing callback: reported, the rest run
                self.loop.call_exception_handler({"message": "fifo timer callback failed", "exception": exc})


_QUEUES: dict[tuple[int, float], _Queue] = {}
"""Queues by (id of their loop, timer length). A queue names its loop, so a reused id is told apart."""


call_later = Timer
"""``call_later(loop, delay, callback, arg)``: ``loop.call_later(delay, callback, arg)``, sharing one loop timer with
every other timer of this length (it returns the ``Timer``; ``cancel()`` it as a ``TimerHandle``)."""


def _new_queue(loop: asyncio.AbstractEventLoop, delay: float) -> _Queue:
    if len(_QUEUES) >= 64:  # loops come and go (one per test, say): forget the queues with nothing pending
        for key in [key for key, queue in _QUEUES.items() if not queue.pending]:
            del _QUEUES[key]
    queue = _QUEUES[id(loop), delay] = _Queue(loop)
    return queue


def pending(loop: asyncio.AbstractEventLoop, delay: float) -> int:
    """How many timers of this length wait on ``loop`` (for tests and status)."""
    queue = _QUEUES.get((id(loop), delay))
    return len(queue.pending) if queue is not None and queue.loop is loop else 0

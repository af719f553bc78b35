"""A call's deadline as a check and a shared timer, for the task that makes it (one per relayed call).

The timer is a ``fifo_timers`` one: every deadline of the same length on a loop shares one loop timer (instead of a
loop timer made and cancelled per call).
"""

from __future__ import annotations

import asyncio

from mcp_eras.bridge import _perf, fifo_timers


class Deadline:
    """``asyncio.timeout`` for the task that makes it, as a check instead of a context manager (one per relayed call):
    when ``delay`` seconds pass the task is cancelled; ``expired_here()`` then tells that cancellation from any other
    (and takes it back), so the caller answers a timeout and still honours an outside cancel. ``close()`` ends it;
    call it on every way out."""

    __slots__ = ("_task", "_cancelling", "_timer", "_expired")

    def __init__(self, delay: float, loop: asyncio.AbstractEventLoop | None = None) -> None:
        loop = loop or asyncio.get_running_loop()
        task = _perf.current_task(loop)
        assert task is not None
        self._task = task
        self._cancelling = task.cancelling()
        self._expired = False
        self._timer = fifo_timers.call_later(loop, delay, Deadline._expire, self)

    def _expire(self) -> None:
        self._expired = True
        self._task.cancel()

    def expired_here(self) -> bool:
        """On a CancelledError: whether it is this deadline's (then the cancel request is withdrawn)."""
        return self._expired and self._task.uncancel() <= self._cancelling

    def close(self) -> None:
        self._timer.cancel()

"""bridge.upstream.deadline and bridge.fifo_timers: a call's deadline, many of one length sharing one timer per loop (issue 13: no timer
created and cancelled per relayed call)."""

from __future__ import annotations

import asyncio

import pytest

from mcp_eras.bridge import _perf, fifo_timers
from mcp_eras.bridge.upstream.deadline import Deadline


async def _call(delay: float, work: float, log: list[str], name: str) -> None:
    """A call under a deadline of ``delay``: it answers "timeout" when its own deadline ends it."""
    d = Deadline(delay, asyncio.get_running_loop())
    try:
        await asyncio.sleep(work)
        log.append(f"{name}:done")
    except asyncio.CancelledError:
        if d.expired_here():
            log.append(f"{name}:timeout")
            return
        log.append(f"{name}:cancelled")
        raise
    finally:
        d.close()


@pytest.mark.parametrize("fast", ["0", "1"])
def test_deadlines_of_one_length_share_a_timer_and_expire_only_their_calls(monkeypatch: pytest.MonkeyPatch, fast: str) -> None:
    monkeypatch.setenv("MCP_BRIDGE_FAST", fast)

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        log: list[str] = []
        calls = [loop.create_task(_call(0.2, 0.01 if i % 2 else 5, log, f"c{i}")) for i in range(6)]
        await asyncio.sleep(0)  # every call has made its deadline
        queue = fifo_timers._QUEUES[id(loop), 0.2]
        assert len(queue.pending) == 6 and queue.handle is not None  # one loop timer for all six
        await asyncio.gather(*calls)
        assert not queue.pending  # closed on every way out
        return log

    log = _perf.run(main())
    assert sorted(log) == sorted([f"c{i}:done" for i in (1, 3, 5)] + [f"c{i}:timeout" for i in (0, 2, 4)])


def test_an_outside_cancel_is_not_a_timeout_and_lengths_queue_apart() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        log: list[str] = []
        long_call = loop.create_task(_call(30, 5, log, "long"))
        short_call = loop.create_task(_call(0.05, 5, log, "short"))
        await asyncio.sleep(0)
        assert fifo_timers.pending(loop, 30) == 1 and fifo_timers.pending(loop, 0.05) == 1
        await short_call  # its own deadline ends it; the 30 s one does not move
        assert not long_call.done()
        long_call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await long_call
        assert fifo_timers.pending(loop, 30) == 0
        return log

    assert asyncio.run(main()) == ["short:timeout", "long:cancelled"]


def test_the_timer_is_set_again_for_the_next_open_deadline() -> None:
    """The oldest deadline closes early; when the timer fires for it, the next one is still open and not due: the
    timer is set for that one, which then ends its call."""

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        log: list[str] = []
        first = loop.create_task(_call(0.1, 0, log, "first"))
        await asyncio.sleep(0.05)
        second = loop.create_task(_call(0.1, 5, log, "second"))
        await first
        await second
        return log

    assert asyncio.run(main()) == ["first:done", "second:timeout"]


def test_a_failing_timer_is_reported_and_the_others_still_run() -> None:
    async def main() -> tuple[list[object], list[str]]:
        loop = asyncio.get_running_loop()
        reported: list[str] = []
        loop.set_exception_handler(lambda _loop, context: reported.append(context["message"]))
        ran: list[object] = []
        done = loop.create_future()

        def boom(_arg: object) -> None:
            raise RuntimeError("boom")

        fifo_timers.call_later(loop, 0.02, boom, None)
        fifo_timers.call_later(loop, 0.02, ran.append, "second")
        cancelled = fifo_timers.call_later(loop, 0.02, ran.append, "cancelled")
        fifo_timers.call_later(loop, 0.02, lambda _a: done.set_result(None), None)
        cancelled.cancel()
        await done
        return ran, reported

    ran, reported = asyncio.run(main())
    assert ran == ["second"] and reported == ["fifo timer callback failed"]

"""A stdio child's start has an end: after (or during) ``aclose`` it refuses at once instead of waiting forever
for a supervisor that will never run (found by the 500-identity stress run, issue #10)."""

from __future__ import annotations

import asyncio
import sys

import pytest

from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.upstream.process import ChildProcess

pytestmark = pytest.mark.anyio
SILENT = [sys.executable, "-c", "import sys; sys.stdin.read()"]


async def ignore(_msg: object) -> None:
    return None


async def test_start_after_close_is_refused_at_once() -> None:
    child = ChildProcess(SILENT, on_message=ignore, name="silent")
    await child.start()
    assert child.alive
    await child.aclose()
    with pytest.raises(UpstreamError, match="closed"):
        await asyncio.wait_for(child.start(), 5)


async def test_a_child_closed_before_it_ever_started_refuses_to_start() -> None:
    child = ChildProcess(SILENT, on_message=ignore, name="never")
    await child.aclose()
    with pytest.raises(UpstreamError, match="closed"):
        await asyncio.wait_for(child.start(), 5)


ECHO = [sys.executable, "-c", "import sys\nfor line in sys.stdin:\n    sys.stdout.write(line)\n    sys.stdout.flush()"]


async def test_concurrent_frames_arrive_whole_and_in_order_of_sending() -> None:
    """Frames are written without a lock (one write call each, drain only when the pipe is behind): many
    senders at once, frames larger than a pipe's buffer, and every frame comes back whole."""
    got: list[dict] = []
    done = asyncio.Event()
    total = 60

    async def collect(msg: dict) -> None:
        got.append(msg)
        if len(got) == total:
            done.set()

    child = ChildProcess(ECHO, on_message=collect, name="echo")
    await child.start()
    try:
        blob = "x" * 200_000  # several times a pipe's 64 KiB: the writer must wait for the child to read
        sends = [child.send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"n": i, "data": blob}})
                 for i in range(total)]
        await asyncio.wait_for(asyncio.gather(*sends), 60)
        await asyncio.wait_for(done.wait(), 60)
    finally:
        await child.aclose()
    assert [m["params"]["n"] for m in got] == list(range(total))
    assert all(m["params"]["data"] == blob for m in got)


async def test_responses_are_offered_first_and_the_rest_goes_to_on_message() -> None:
    """``on_response`` sees frames without ``method`` in order; what it declines, and every other frame,
    reaches ``on_message``."""
    seen: list[tuple[str, object]] = []
    done = asyncio.Event()

    async def on_message(msg: dict) -> None:
        seen.append(("message", msg.get("id", msg.get("method"))))
        if msg.get("method") == "notifications/last":
            done.set()

    def on_response(msg: dict) -> bool:
        seen.append(("response", msg["id"]))
        return msg["id"] != 2  # declines id 2

    child = ChildProcess(ECHO, on_message=on_message, name="echo")
    child.on_response = on_response
    await child.start()
    try:
        for frame in ({"jsonrpc": "2.0", "id": 1, "result": {}}, {"jsonrpc": "2.0", "id": 7, "method": "ping"},
                      {"jsonrpc": "2.0", "id": 2, "result": {}}, {"jsonrpc": "2.0", "method": "notifications/last"}):
            await child.send(frame)
        await asyncio.wait_for(done.wait(), 30)
    finally:
        await child.aclose()
    assert seen == [("response", 1), ("message", 7), ("response", 2), ("message", 2), ("message", "notifications/last")]

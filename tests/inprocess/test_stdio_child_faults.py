"""Issue #33: a stdio child's faults seen by its own shell (``ChildProcess``) and the era probe, with real processes.

- A child that writes requests without reading its stdin never wedges the bridge's reader of its stdout (the
  answers to its requests are buffered, bounded); a caller's send past the bound fails, named, after ``send_wait``.
- A child that dies before answering the era probe is reported at once with its exit status and stderr, not
  classed from its silence; one that dies on a session's ``initialize`` answers every caller waiting on it at once.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from handoffs import tools_call

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, UpstreamError, discard
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.upstream import process
from mcp_eras.bridge.upstream.factory import Target, legacy_upstream, probe_stdio
from mcp_eras.bridge.upstream.process import ChildProcess

pytestmark = pytest.mark.anyio
FAULTY = Path(__file__).resolve().parents[2] / "samples" / "faulty" / "faulty_server.py"
PINGS = 5000
FLOODER = [sys.executable, "-c", (
    "import sys, time\n"
    "sys.stdin.readline()\n"
    f"for i in range({PINGS}):\n"
    "    sys.stdout.write('{\"jsonrpc\": \"2.0\", \"id\": %d, \"method\": \"ping\"}\\n' % i)\n"
    "sys.stdout.flush()\n"
    "time.sleep(600)\n")]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_child_writing_without_reading_never_wedges_its_reader() -> None:
    handled = 0
    dropped: list[str] = []
    all_handled = asyncio.Event()

    async def on_message(msg: dict) -> None:
        nonlocal handled
        try:
            await child.send(jsonrpc.result_response(msg["id"], {}))  # as a session answers the child's ping
        except UpstreamError as exc:
            dropped.append(str(exc))
        handled += 1
        if handled == PINGS:
            all_handled.set()

    child = ChildProcess(FLOODER, on_message=on_message, name="flooder")
    child.send_wait = 0.5
    await child.start()
    try:
        await child.send(jsonrpc.notification("notifications/initialized"))  # the child floods once it reads this
        # Its answers (5000 x ~40 bytes, past a pipe's 64 KiB) are never read: the reader must still handle all.
        await asyncio.wait_for(all_handled.wait(), 60)
        assert not dropped and child.unsent() > 0
        await child.send({"jsonrpc": "2.0", "method": "notifications/message",
                          "params": {"data": "x" * (process.MAX_UNSENT_BYTES + 1)}})  # room left: queued
        with pytest.raises(UpstreamError, match="is not reading its input"):
            await asyncio.wait_for(child.send(jsonrpc.request(1, "tools/list")), 30)
        assert "frames refused: it is not reading its input" in child.faults()
        assert "bytes of its input not read" in child.faults()
    finally:
        await child.aclose()


async def test_a_child_dying_before_the_probe_is_answered_is_reported_with_its_status_and_stderr() -> None:
    target = Target(command=[sys.executable, str(FAULTY), "crash-at-start"], name="crasher")
    with pytest.raises(UpstreamError) as caught:
        await asyncio.wait_for(probe_stdio(target, Settings(probe_timeout=30, probe_start_timeout=60)), 60)
    message = str(caught.value)
    assert "exited with status 3" in message
    assert "faulty: start-up line 1" in message and "configuration missing, exiting" in message


async def test_a_child_dying_on_initialize_is_reported_by_the_probe_with_its_stderr() -> None:
    target = Target(command=[sys.executable, str(FAULTY), "die-on-init"], name="dier")
    with pytest.raises(UpstreamError) as caught:
        await asyncio.wait_for(probe_stdio(target, Settings(probe_timeout=30, probe_start_timeout=60)), 60)
    assert "exited with status 4" in str(caught.value) and "out of licences" in str(caught.value)


async def test_callers_of_a_session_whose_server_dies_on_initialize_all_get_its_exit_at_once() -> None:
    """They waited on one handshake: its failure (exit status, last stderr lines) answers them all, instead of each
    starting a handshake of its own on the respawned child and waiting for it in turn."""
    target = Target(command=[sys.executable, str(FAULTY), "die-on-init"], name="dier")
    up = legacy_upstream(target, Settings(request_timeout=120, connect_timeout=30))
    await up.start()
    try:
        answers = await asyncio.wait_for(asyncio.gather(*(up.call(tools_call(i), CallContext(), discard) for i in range(4))), 60)
    finally:
        await up.aclose()
    for answer in answers:
        assert "exited with status 4" in answer["error"]["message"], answer
        assert "out of licences" in answer["error"]["message"], answer

"""A stdio child's start has an end: after (or during) ``aclose`` it refuses at once instead of waiting forever
for a supervisor that will never run (found by the 500-identity stress run, issue #10)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.translate import stdio_child
from mcp_eras.bridge.upstream import prespawn, process
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


@pytest.mark.parametrize(("argv", "env"), [(["/nonexistent/mcp-server"], None), (SILENT, {"X": 1})],
                         ids=["missing command (OSError)", "a non-string variable (TypeError)"])
async def test_a_command_that_cannot_be_spawned_is_refused_at_start(argv: list[str], env: Any) -> None:
    """Any spawn failure, not only an OSError, answers start() (and is retried with backoff), never a hang."""
    child = ChildProcess(argv, on_message=ignore, name="broken", env=env)
    try:
        with pytest.raises(UpstreamError, match="cannot start"):
            await asyncio.wait_for(child.start(), 5)
    finally:
        await child.aclose()


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


# --- stdout read by a protocol (issue #13): lines cut in the pipe's data callback, responses handed on from there ---

SCRIPTED = [sys.executable, "-c", (
    "import json, sys\n"
    "out = sys.stdout.buffer\n"
    "out.write(sys.argv[1].encode() if len(sys.argv) > 1 else b''); out.flush()\n"
    "for line in sys.stdin.buffer:\n"
    "    cmd = json.loads(line)\n"
    "    if 'write' in cmd:\n"
    "        out.write(cmd['write'].encode()); out.flush()\n"
    "    for n in range(cmd.get('flood', 0)):\n"
    "        out.write(b'{\"jsonrpc\":\"2.0\",\"method\":\"notifications/n\",\"params\":{\"n\":%d}}\\n' % n)\n"
    "    out.flush()\n"
    "    if 'exit' in cmd:\n"
    "        sys.exit(cmd['exit'])\n"
)]
"""A child that writes what it is told: ``{"write": TEXT}`` in one write call, ``{"flood": N}`` N notifications,
``{"exit": CODE}``; its first argument is written at start."""


@pytest.fixture(params=["asyncio", "uvloop"])
def anyio_backend(request: pytest.FixtureRequest) -> object:
    if request.param == "uvloop":
        pytest.importorskip("uvloop")
        return ("asyncio", {"use_uvloop": True})
    return "asyncio"


@pytest.fixture(params=["spawned", "adopted"])
def how(request: pytest.FixtureRequest) -> Iterator[str]:
    """Both ways a generation starts: spawned by the event loop, or adopted from ``prespawn`` (started before it)."""
    yield request.param
    prespawn.discard()


def frame(**fields: object) -> str:
    return json.dumps({"jsonrpc": "2.0", **fields}) + "\n"


def note(n: int) -> str:
    return frame(method="notifications/n", params={"n": n})


def scripted(how: str, *args: str, **kwargs: Any) -> ChildProcess:
    argv = [*SCRIPTED, *args]
    if how == "adopted":
        prespawn.early(["serve", "--stdio", "--", *argv])
    child = ChildProcess(argv, name="scripted", **kwargs)
    assert (child._adopt is not None) == (how == "adopted")
    return child


class Chunks:
    """Records the chunks the stdout pipe delivers (to show a case really happened within one read, or across)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.got: list[bytes] = []
        self.arrived = asyncio.Event()
        data = process._StdoutFrames.data

        def record(frames: process._StdoutFrames, chunk: bytes) -> None:
            self.got.append(chunk)
            self.arrived.set()
            data(frames, chunk)

        monkeypatch.setattr(process._StdoutFrames, "data", record)


def pauses(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Set when a child's stdout pipe is paused (its queue for ``on_message`` went over the cap)."""
    paused = asyncio.Event()
    pause = process._StdoutFrames._pause

    def record(frames: process._StdoutFrames) -> None:
        pause(frames)
        paused.set()

    monkeypatch.setattr(process._StdoutFrames, "_pause", record)
    return paused


async def test_frames_split_across_reads_and_many_in_one_read_arrive_whole_and_in_order(
        how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    chunks = Chunks(monkeypatch)
    got: list[int] = []
    done = asyncio.Event()

    async def on_message(msg: dict) -> None:
        got.append(msg["params"]["n"])
        if len(got) == 4:
            done.set()

    child = scripted(how, on_message=on_message)
    await child.start()
    try:
        first = note(0)
        await child.send({"write": first[:10]})
        await asyncio.wait_for(chunks.arrived.wait(), 30)
        assert chunks.got == [first[:10].encode()] and got == []
        await child.send({"write": first[10:] + note(1) + note(2) + note(3)})
        await asyncio.wait_for(done.wait(), 30)
    finally:
        await child.aclose()
    assert got == [0, 1, 2, 3]
    assert chunks.got[1] == (first[10:] + note(1) + note(2) + note(3)).encode(), "one write, one read (under PIPE_BUF)"
    assert child.output_seen.is_set()


async def test_a_response_after_a_notification_in_the_same_read_waits_for_its_on_message(
        how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stdout order holds: ``on_response`` sees the response only after ``on_message`` for the notification before
    it (in the same read) has completed, though the response is offered without a task of its own."""
    chunks = Chunks(monkeypatch)
    seen: list[str] = []
    entered, gate, answered = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def on_message(msg: dict) -> None:
        seen.append(f"message {msg['method']}")
        entered.set()
        await gate.wait()
        seen.append("message done")

    def on_response(msg: dict) -> bool:
        seen.append(f"response {msg['id']}" + (" in a task" if asyncio.current_task() else " from the pipe"))
        answered.set()
        return True

    child = scripted(how, on_message=on_message)
    child.on_response = on_response
    await child.start()
    try:
        await child.send({"write": note(1) + frame(id=5, result={})})
        await asyncio.wait_for(entered.wait(), 30)
        assert chunks.got == [(note(1) + frame(id=5, result={})).encode()], "both frames came in one read"
        assert seen == ["message notifications/n"], "the response queued behind the notification"
        gate.set()
        await asyncio.wait_for(answered.wait(), 30)
        assert seen == ["message notifications/n", "message done", "response 5 in a task"]
        answered.clear()
        await child.send({"write": frame(id=6, result={})})
        await asyncio.wait_for(answered.wait(), 30)
    finally:
        await child.aclose()
    assert seen[-1] == "response 6 from the pipe", "nothing pending: offered in the data callback, no task step"


async def test_responses_queued_behind_a_message_are_offered_once_and_declined_ones_reach_on_message() -> None:
    """Driven by hand, one data callback at a time: what the fast path declined is not offered again."""
    seen: list[str] = []
    gate, entered = asyncio.Event(), asyncio.Event()

    async def on_message(msg: dict) -> None:
        seen.append(f"message {msg.get('id', msg.get('method'))}")
        if msg.get("method") == "first":
            entered.set()
            await gate.wait()

    def on_response(msg: dict) -> bool:
        seen.append(f"response {msg['id']}")
        return msg["id"] % 2 == 0  # takes even ids

    child = ChildProcess(SILENT, on_message=on_message, name="by-hand")
    child.on_response = on_response
    frames = process._StdoutFrames(child)
    consumer = asyncio.create_task(frames.consume())
    frames.data(frame(id=1, result={}).encode())  # idle: offered at once, declined, queued for on_message
    assert seen == ["response 1"]
    frames.data((frame(method="first") + frame(id=2, result={}) + frame(id=3, result={})).encode())
    assert seen == ["response 1"], "behind a queued frame: nothing offered from the callback"
    await asyncio.wait_for(entered.wait(), 30)  # the consumer handled id 1 and waits at the gate inside "first"
    assert seen == ["response 1", "message 1", "message first"]
    frames.data((frame(id=4, result={}) + "not json\n\n").encode())
    frames.eof()
    assert not consumer.done()
    gate.set()
    assert await asyncio.wait_for(consumer, 30) is None
    assert seen == ["response 1", "message 1", "message first", "response 2", "response 3", "message 3", "response 4"]


async def test_a_line_that_is_not_json_rpc_is_skipped(how: str, caplog: pytest.LogCaptureFixture) -> None:
    got: list[int] = []
    done = asyncio.Event()

    async def on_message(msg: dict) -> None:
        got.append(msg["params"]["n"])
        if msg["params"]["n"] == 2:
            done.set()

    child = scripted(how, "hello from a print()\n\n" + note(1) + "[1, 2\n" + note(2), on_message=on_message)
    await child.start()
    try:
        await asyncio.wait_for(done.wait(), 30)
    finally:
        await child.aclose()
    assert got == [1, 2]
    warnings = [r.getMessage() for r in caplog.records if "ignoring non-JSON-RPC stdout line" in r.getMessage()]
    assert len(warnings) == 2 and "hello from a print()" in warnings[0], warnings


async def test_a_line_over_the_limit_is_dropped_and_the_stream_goes_on(how: str, caplog: pytest.LogCaptureFixture) -> None:
    """Issue #33: a line over ``max_line_bytes`` is dropped as it streams (never held whole) and named in the log;
    the frames after it are handled and the child lives on (it used to be killed, failing every call of its session);
    a response's id found at the line's ends gets an error naming the limit in place of the answer."""
    got: list[Any] = []
    exits: list[int] = []
    after = asyncio.Event()

    async def on_message(msg: dict) -> None:
        got.append(msg["params"]["n"] if "params" in msg else msg)
        if len(got) == 3:
            after.set()

    async def on_exit(code: int) -> None:
        exits.append(code)

    oversized = '{"jsonrpc": "2.0", "id": 5, "result": {"text": "' + "x" * 2000 + '"}}\n'
    child = scripted(how, note(7) + oversized + note(8), on_message=on_message, on_exit=on_exit,
                     max_line_bytes=1000, backoff_initial=0.01)
    await child.start()
    try:
        await asyncio.wait_for(after.wait(), 30)
        assert child.alive and child.generation == 1 and not exits, "not killed"
    finally:
        await child.aclose()
    assert got[0] == 7 and got[2] == 8
    assert got[1]["id"] == 5 and got[1]["error"]["data"]["limit"] == "max_line_bytes"
    assert child.oversized == 1 and "max_line_bytes = 1000" in child.faults()
    assert any("over the frame limit of 1000" in r.getMessage() for r in caplog.records)


async def test_at_eof_the_queued_frames_are_all_handled_before_the_exit(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[object] = []
    entered, gate, exited, eof = asyncio.Event(), asyncio.Event(), asyncio.Event(), asyncio.Event()
    eof_of = process._StdoutFrames.eof

    def record_eof(frames: process._StdoutFrames) -> None:
        eof_of(frames)
        eof.set()

    monkeypatch.setattr(process._StdoutFrames, "eof", record_eof)

    async def on_message(msg: dict) -> None:
        order.append(msg.get("id", msg.get("method")))
        entered.set()
        await gate.wait()

    def on_response(msg: dict) -> bool:
        order.append(f"response {msg['id']}")
        return True

    async def on_exit(code: int) -> None:
        order.append(("exit", code))
        exited.set()

    child = scripted(how, on_message=on_message, on_exit=on_exit, backoff_initial=0.01)
    child.on_response = on_response
    await child.start()
    try:
        await child.send({"write": frame(method="a") + frame(id=1, result={}) + frame(method="b"), "exit": 3})
        await asyncio.wait_for(entered.wait(), 30)
        await asyncio.wait_for(eof.wait(), 30)
        assert order == ["a"]
        gate.set()
        await asyncio.wait_for(exited.wait(), 30)
    finally:
        await child.aclose()
    assert order[:4] == ["a", "response 1", "b", ("exit", 3)]


async def test_a_flood_behind_a_slow_handler_pauses_the_pipe_and_loses_nothing(
        how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Back-pressure: the queue for ``on_message`` holds a bounded number of frames; past it the pipe is paused
    (the child blocks on its full pipe), and reading resumes as the queue drains. Every frame arrives, in order."""
    paused, resumed = pauses(monkeypatch), asyncio.Event()
    data, resume = process._StdoutFrames.data, process._StdoutFrames._resume
    while_paused: list[bytes] = []
    queued_at_a_read: list[int] = []

    def record_data(frames: process._StdoutFrames, chunk: bytes) -> None:
        if frames.paused:
            while_paused.append(chunk)
        queued_at_a_read.append(len(frames.queue))
        data(frames, chunk)

    def record_resume(frames: process._StdoutFrames) -> None:
        if frames.paused:
            resumed.set()
        resume(frames)

    monkeypatch.setattr(process._StdoutFrames, "data", record_data)
    monkeypatch.setattr(process._StdoutFrames, "_resume", record_resume)
    total = 10 * stdio_child.MAX_QUEUED_FRAMES  # ~700 KB: more than one read (256 KiB) past the cap, on either loop
    got: list[int] = []
    gate, done = asyncio.Event(), asyncio.Event()

    async def on_message(msg: dict) -> None:
        await gate.wait()
        got.append(msg["params"]["n"])
        if len(got) == total:
            done.set()

    child = scripted(how, on_message=on_message)
    await child.start()
    try:
        await child.send({"flood": total})
        await asyncio.wait_for(paused.wait(), 30)
        assert child._frames is not None and child._frames.paused
        assert len(child._frames.queue) > stdio_child.MAX_QUEUED_FRAMES
        gate.set()
        await asyncio.wait_for(done.wait(), 60)
    finally:
        await child.aclose()
    assert resumed.is_set()
    assert got == list(range(total))
    assert while_paused == [], "nothing read while paused"
    assert max(queued_at_a_read) <= stdio_child.MAX_QUEUED_FRAMES, "past the cap only the rest of the read that reached it"


async def test_closing_a_child_whose_pipe_is_paused_ends_promptly(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """aclose resumes a paused stdout (the child's exit is only seen with its stdout read to the end) and never
    pauses it again: the child exits at the closed stdin, not after the SIGTERM/SIGKILL deadlines."""
    gate, paused = asyncio.Event(), pauses(monkeypatch)

    async def on_message(msg: dict) -> None:
        await gate.wait()

    child = scripted(how, on_message=on_message)
    await child.start()
    await child.send({"flood": 10 * stdio_child.MAX_QUEUED_FRAMES})
    await asyncio.wait_for(paused.wait(), 30)
    proc, frames = child._proc, child._frames
    assert proc is not None and frames is not None
    await asyncio.wait_for(child.aclose(), 30)
    assert proc.returncode == 0, "stdin closed: it exited on its own"
    assert frames.close_started and not frames.paused


class FakePipe:
    def __init__(self) -> None:
        self.reading = True

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True


async def test_the_queue_is_capped_in_frames_and_bytes_and_frames_past_it_while_closing_are_dropped() -> None:
    gate = asyncio.Event()

    async def on_message(msg: dict) -> None:
        await gate.wait()

    child = ChildProcess(SILENT, on_message=on_message, name="by-hand", max_line_bytes=100_000)
    frames = process._StdoutFrames(child)
    frames.transport = pipe = FakePipe()  # type: ignore[assignment]
    frames.data(note(0).encode() * stdio_child.MAX_QUEUED_FRAMES)
    assert pipe.reading and len(frames.queue) == stdio_child.MAX_QUEUED_FRAMES
    frames.data(note(1).encode())
    assert not pipe.reading, "one frame past the cap: paused"
    frames.closing()
    assert pipe.reading, "closing: read on to the end"
    frames.data(note(2).encode() * 5)
    assert len(frames.queue) == stdio_child.MAX_QUEUED_FRAMES + 1 and frames.dropped == 5

    frames = process._StdoutFrames(child)
    frames.transport = pipe = FakePipe()  # type: ignore[assignment]
    big = frame(method="big", params={"data": "x" * 60_000})
    frames.data(big.encode())
    assert pipe.reading
    frames.data(big.encode())
    assert not pipe.reading, "two frames over max_line_bytes together: paused"
    consumer = asyncio.create_task(frames.consume())
    gate.set()
    frames.eof()
    assert await asyncio.wait_for(consumer, 30) is None
    assert pipe.reading and not frames.queue and frames.queued_bytes == 0


# --- a child that reads none of its waiting input is restarted; a slow reader is kept (issue #33) ---

NOT_READING = [sys.executable, "-c", "import time; time.sleep(600)"]
SLOW_READER = [sys.executable, "-c", "import sys, time\nwhile sys.stdin.buffer.read(4096):\n    time.sleep(0.05)"]


def blob(size: int) -> dict:
    return {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "x" * size}}


async def over_the_bound(child: ChildProcess) -> None:
    """Leave more than ``MAX_UNSENT_BYTES`` unsent (two frames: each send waits only while the bound is passed)."""
    await child.send(blob(process.MAX_UNSENT_BYTES))
    await child.send(blob(1024 * 1024))
    assert child.unsent() > process.MAX_UNSENT_BYTES


async def test_a_child_reading_none_of_its_waiting_input_is_restarted_and_its_callers_told_why(anyio_backend: object) -> None:
    if isinstance(anyio_backend, tuple):
        pytest.skip("uvloop's pipe transport does not report partial reads: the watch is off there (process.reports_partial_reads)")
    exits: list[str] = []
    exited = asyncio.Event()

    async def on_exit(code: int) -> None:
        exits.append(child.exit_description(code))
        exited.set()

    child = ChildProcess(NOT_READING, on_message=ignore, on_exit=on_exit, name="wedged", backoff_initial=0.05)
    child.send_wait = 0.5  # the window: 0.5 s of send wait and the grace (stdin_watch.STALL_GRACE_S)
    await child.start()
    try:
        first = child.pid
        await over_the_bound(child)
        with pytest.raises(UpstreamError, match="is not reading its input"):  # a sender is told first...
            await asyncio.wait_for(child.send(blob(10)), 30)
        child.send_wait = 60.0  # ...and one still waiting for room when the child is stopped is told why
        with pytest.raises(UpstreamError, match=r"restarted: it read none of its input for 1\.5 s; \d+ bytes unread"):
            await asyncio.wait_for(child.send(blob(10)), 30)
        await asyncio.wait_for(exited.wait(), 30)
        await child.wait_ready(30)
        assert child.generation == 2 and child.pid != first
        assert child.restarts == 1 and child.unread_kills == 1
        assert "restarts for reading none of its input" in child.faults()
        assert exits and exits[0].startswith("upstream process restarted: it read none of its input for 1.5 s; ")
        assert "bytes unread (stopped, status -15)" in exits[0]
        await child.send(blob(10))  # the new generation takes input again
    finally:
        await child.aclose()


async def slow_reader_past_the_bound(child: ChildProcess) -> int:
    """Input stays past the bound far longer than the window, but the child reads some of it all along."""
    await over_the_bound(child)
    with pytest.raises(UpstreamError, match="is not reading its input"):  # no room within the send wait (watched)
        await asyncio.wait_for(child.send(blob(10)), 30)
    return process.MAX_UNSENT_BYTES  # still past the bound at the end: the watch was still sampling


async def busy_below_the_bound(child: ChildProcess) -> int:
    """A child that reads nothing, with less than the bound unsent (more than a pipe's buffer), is not watched."""
    await child.send(blob(1024 * 1024))
    return process.UNREAD_NOTED_BYTES


@pytest.mark.parametrize(("argv", "fill"), [(SLOW_READER, slow_reader_past_the_bound), (NOT_READING, busy_below_the_bound)],
                         ids=["a slow reader", "busy below the bound"])
async def test_a_child_reading_slowly_or_busy_below_the_bound_is_kept(argv: list[str], fill: Any) -> None:
    child = ChildProcess(argv, on_message=ignore, name="kept")
    child.send_wait = 1.0
    await child.start()
    try:
        at_least = await fill(child)
        await asyncio.sleep(5.0)  # 2.5 windows (the send wait and its grace)
        assert child.unsent() > at_least
        assert child.alive and child.generation == 1 and child.restarts == 0 and child.unread_kills == 0
    finally:
        await child.aclose()

"""A long-lived stdio child speaking newline-delimited JSON-RPC, respawned with backoff when it dies.

Moves bytes only: frames out, frames in, lifecycle events. Protocol meaning lives in the session
layers that own one of these.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio

from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.translate.lines import LineSplitter, Oversized, over_limit_error, oversized_response_id
from mcp_eras.bridge.translate.stdin_watch import InputWatch
from mcp_eras.bridge.translate.stdio_child import Backoff, may_resume, over_cap, stdout_frame
from mcp_eras.bridge.upstream import prespawn

log = logging.getLogger("mcp_bridge.process")

OnMessage = Callable[[Message], Awaitable[None]]
OnExit = Callable[[int], Awaitable[None]]

STDERR_TAIL_LINES = 20
"""A child's last stderr lines kept (each cut to ``STDERR_LINE_CHARS``), whether shown or not: a child that dies
is reported with them."""
STDERR_LINE_CHARS = 400
STDERR_SHOWN = 5
"""How many of them an exit report quotes."""
STDERR_DRAIN_S = 1.0
"""After a child exits, how long its stderr is still read (a grandchild may hold it open)."""
MAX_UNSENT_BYTES = 4 * 1024 * 1024
"""Bytes written to a child and not yet read by it, past which a send waits (at most ``send_wait``) for the child to
read; past that wait it fails, named. The stdout reader's own sends (answers to the child's requests) never wait:
they are dropped past this bound (a child that writes without reading would otherwise wedge its reader). A child that
reads none of its input past this bound for its send wait and a grace is stopped and respawned (``stdin_watch``)."""
SEND_WAIT_S = 10.0
LOGGED_LINES = 10
"""stdout lines that are not JSON-RPC logged one by one; past them every 1000th."""
UNREAD_NOTED_BYTES = 64 * 1024
"""Unread input past which a caller that times out is told the child is not reading (a pipe's buffer: below it
the child may just be busy)."""
KILL_GRACE_S = 2.0
"""A child stopped for reading none of its input is sent SIGTERM, then SIGKILL past this."""

def reports_partial_reads(transport: object) -> bool:
    """Whether the stdin transport's write-buffer size falls as the child reads (asyncio's own pipe transport). uvloop's
    (0.23) stayed the same while a child read 80 KB/s of a 5 MB backlog, so there a slow reader would look wedged: the
    watch is off there (its callers still get the named errors)."""
    return type(transport).__module__.startswith("asyncio.")


class ChildProcess:
    """One stdio MCP server process. ``generation`` increases with every (re)spawn."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        on_message: OnMessage,
        on_exit: OnExit | None = None,
        env: dict[str, str] | None = None,
        inherit_env: bool = True,
        cwd: str | None = None,
        max_line_bytes: int = 16 * 1024 * 1024,
        backoff_initial: float = 0.1,
        backoff_max: float = 10.0,
        name: str = "upstream",
        quiet: bool = False,
    ) -> None:
        if not argv:
            raise ValueError("an upstream command is required")
        self.argv = list(argv)
        self.on_message = on_message
        self.on_response: Callable[[Message], bool] | None = None
        """When set: offered each response (a frame without ``method``) first, in order and without a task switch;
        it returns whether it took the frame (else ``on_message`` gets it)."""
        self.on_exit = on_exit
        self.env = ({**os.environ} if inherit_env else {"PATH": os.environ.get("PATH", "")}) | (env or {})
        self.cwd = cwd
        self.max_line_bytes = max_line_bytes
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.name = name
        self.quiet = quiet
        """Drop the child's stderr (probes: a legacy server's complaints about the probe are noise)."""
        self.generation = 0
        self.restarts = 0
        self.last_exit: int | None = None
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self.send_wait = SEND_WAIT_S
        """The longest a send waits for room (``MAX_UNSENT_BYTES``); its holder sets it to its callers' deadline."""
        self.oversized = 0
        """stdout lines dropped for being over ``max_line_bytes`` (the stream resynchronises at the next line)."""
        self.ignored_lines = 0
        """stdout lines that were not JSON-RPC messages (2025-11-25 basic/transports.mdx §stdio forbids them)."""
        self.unsent_refused = 0
        """Frames refused because the child had not read ``MAX_UNSENT_BYTES`` already."""
        self.unread_kills = 0
        """Generations stopped (and respawned) for reading none of their input for a window (``stdin_watch``)."""
        self.last_exit_reason: str | None = None
        """Why the bridge stopped the last generation that ended (None: it ended by itself)."""
        self._kill_reason: str | None = None
        self._written = 0
        """Bytes written to the current generation's stdin (what it read = this minus those still unsent)."""
        self._watch: asyncio.TimerHandle | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._ready = asyncio.Event()
        self._closed = False
        self._supervisor: asyncio.Task[None] | None = None
        self._started = asyncio.Event()
        self._spawn_error: BaseException | None = None
        self._frames: _StdoutFrames | None = None
        self.output_seen = asyncio.Event()
        """Set at the child's first line on stdout or stderr (a loading server is "ready" from then on)."""
        self._adopt: subprocess.Popen[bytes] | None = prespawn.take(self.argv, self.env, cwd)
        """A process of this very command started before the event loop (``prespawn``): the first generation."""

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.returncode is None and self._ready.is_set()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    async def start(self) -> None:
        if self._closed:  # a closed child never starts again: no wait without an end
            raise UpstreamError(f"upstream {self.name} is closed")
        if self._supervisor is None:
            self._supervisor = asyncio.create_task(self._supervise(), name=f"child:{self.name}")
        await self._started.wait()
        if self._closed:
            raise UpstreamError(f"upstream {self.name} was closed while starting")
        if not self._ready.is_set() and self._spawn_error is not None:
            raise UpstreamError(f"cannot start upstream {self.argv[0]!r}: {self._spawn_error}")

    async def wait_ready(self, timeout: float) -> None:
        if self._closed:
            raise UpstreamError("upstream is closed")
        try:
            with anyio.fail_after(timeout):
                await self._ready.wait()
        except TimeoutError:
            raise UpstreamError(f"upstream {self.name} is not running (respawn pending)") from None

    async def send(self, msg: Message) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or not self._ready.is_set():
            why = self._kill_reason  # stopped for reading none of its input, not respawned yet
            raise UpstreamError(f"upstream {self.name} is not running" + (f" (restarted: {why})" if why else ""))
        data = jsonrpc.dumps(msg) + b"\n"
        stdin = proc.stdin
        try:
            transport = stdin.transport
            if transport.is_closing():
                raise BrokenPipeError("stdin is closed")
            # One write call queues the whole frame, so frames never interleave. It waits for the child to read only
            # past MAX_UNSENT_BYTES, and then at most ``send_wait`` (never in the stdout reader): a child that writes
            # without reading cannot wedge its senders, nor its reader's answers to its own requests.
            if transport.get_write_buffer_size() > MAX_UNSENT_BYTES:
                await self._room(stdin)
                if transport.is_closing() or self._proc is not proc:
                    raise BrokenPipeError("stdin is closed")
            stdin.write(data)
            self._written += len(data)
        except (BrokenPipeError, ConnectionResetError, RuntimeError) as exc:
            why = self._kill_reason if self._proc is proc else self.last_exit_reason
            raise UpstreamError(f"upstream {self.name} " + (f"restarted: {why}" if why else f"died: {exc}")) from None

    async def _room(self, stdin: asyncio.StreamWriter) -> None:
        """Wait, at most ``send_wait``, until the child has read enough of its input; never in the stdout reader (the
        supervisor task). Raises ``UpstreamError`` naming the fault when there is no room."""
        self._watch_input()
        if asyncio.current_task() is not self._supervisor:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.send_wait):
                    while stdin.transport.get_write_buffer_size() > MAX_UNSENT_BYTES:
                        await stdin.drain()  # (other senders woken with this one may fill it again)
        unsent = stdin.transport.get_write_buffer_size()
        if unsent <= MAX_UNSENT_BYTES:
            return
        self.unsent_refused += 1
        if self.unsent_refused == 1:
            log.warning("upstream %s: not reading its input (%d bytes unsent); refusing frames", self.name, unsent)
        raise UpstreamError(f"upstream {self.name} is not reading its input ({unsent} bytes unsent, limit {MAX_UNSENT_BYTES})")

    def _watch_input(self) -> None:
        """Input waits past ``MAX_UNSENT_BYTES``: sample what the child reads of it until it is below again; stop the
        generation that read none of it for a window (``stdin_watch``; the supervisor respawns it)."""
        if self._watch is not None or self._closed or self._kill_reason is not None:
            return
        proc, loop = self._proc, asyncio.get_running_loop()
        if proc is None or proc.stdin is None or not reports_partial_reads(proc.stdin.transport):
            return
        watch = InputWatch.for_send_wait(MAX_UNSENT_BYTES, self.send_wait)

        def sample() -> None:
            self._watch = None
            unsent = self.unsent() if self._proc is proc and not self._closed else 0
            verdict = watch.verdict(loop.time(), self._written - unsent, unsent)
            if verdict == "watching":
                self._watch = loop.call_later(watch.tick, sample)
            elif verdict == "wedged" and proc is not None and proc.returncode is None:
                self._kill_reason = watch.reason(unsent)
                self.unread_kills += 1
                log.info("upstream %s: stopping pid %s: %s", self.name, proc.pid, self._kill_reason)
                with contextlib.suppress(ProcessLookupError):
                    proc.terminate()
                loop.call_later(KILL_GRACE_S, lambda: proc.returncode is None and _suppressed(proc.kill))

        sample()

    def kill(self) -> None:
        """Kill the current child (the supervisor respawns it). For tests and `reload`."""
        if self._proc and self._proc.returncode is None:
            self._proc.kill()

    async def aclose(self) -> None:
        self._closed = True
        self._ready.clear()
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        if self._frames is not None:
            self._frames.closing()
        proc = self._proc
        if proc is not None and proc.returncode is None:
            # Spec shutdown order: close stdin, wait, SIGTERM, wait, SIGKILL.
            with contextlib.suppress(Exception):
                if proc.stdin:
                    proc.stdin.close()
            for step in (proc.terminate, proc.kill):
                try:
                    await asyncio.wait_for(proc.wait(), 2.0)
                    break
                except TimeoutError:
                    with contextlib.suppress(ProcessLookupError):
                        step()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 2.0)
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(BaseException):
                await self._supervisor
        self._started.set()  # a start() still waiting learns that the child is closed

    async def _supervise(self) -> None:
        backoff = Backoff(self.backoff_initial, self.backoff_max)
        while not self._closed:
            try:
                self._proc, frames = await self._spawn()
            except Exception as exc:  # noqa: BLE001 - OSError mostly; any failure is reported and retried, never a hang in start()
                self._spawn_error = exc
                log.error("upstream %s: cannot spawn %s: %s", self.name, self.argv[0], exc)
                self._started.set()
                await asyncio.sleep(backoff.spawn_failed())
                continue
            self.generation += 1
            self._spawn_error = None
            self._written, self._kill_reason = 0, None
            self._ready.set()
            self._started.set()
            log.info("upstream %s: started pid %s (generation %d)", self.name, self._proc.pid, self.generation)
            started_at = asyncio.get_running_loop().time()
            stderr_task = asyncio.create_task(self._pump_stderr(self._proc))
            await self._read_stdout(self._proc, frames)
            self._ready.clear()
            code = await self._proc.wait()
            # Its last words are on stderr: read them to the end (bounded) before the exit is reported.
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(stderr_task), STDERR_DRAIN_S)
            stderr_task.cancel()
            self.last_exit, self.last_exit_reason = code, self._kill_reason
            if self._closed:
                break
            self.restarts += 1
            log.warning("upstream %s: %s; respawning%s", self.name,
                        f"stopped ({self._kill_reason}), status {code}" if self._kill_reason else f"exited with {code}",
                        f" (stderr: {self.stderr_summary()})" if self.quiet and self.stderr_tail else "")
            if self.on_exit is not None:
                try:
                    await self.on_exit(code)
                except Exception:  # noqa: BLE001 - a callback bug must not stop respawns
                    log.exception("upstream %s: exit handler failed", self.name)
            # Back off only when the child dies quickly (a crash loop), not after a long healthy run.
            await asyncio.sleep(backoff.exited(asyncio.get_running_loop().time() - started_at))

    async def _spawn(self) -> tuple[Any, _StdoutFrames]:
        """A new generation: the adopted early process (once), else a fresh one; each with a fresh stdout reader."""
        frames = self._frames = _StdoutFrames(self)
        adopt, self._adopt = self._adopt, None
        if adopt is not None:
            return await _adopted(adopt, frames, self.max_line_bytes), frames
        loop = asyncio.get_running_loop()
        # stdout is a pipe of our own read by ``_PipeLines``: the event loop's subprocess transport would hand its data
        # on a loop turn later (uvloop queues pipe data with call_soon); a read pipe's protocol gets it in the callback.
        out_r, out_w = os.pipe()
        try:
            transport, protocol = await loop.subprocess_exec(
                lambda: asyncio.subprocess.SubprocessStreamProtocol(limit=self.max_line_bytes, loop=loop),
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=out_w,
                stderr=asyncio.subprocess.PIPE,
                env=self.env,
                cwd=self.cwd,
                # Its own session: a terminal's Ctrl-C reaches the bridge only, which then stops
                # the child in order (stdin closed, SIGTERM, SIGKILL) instead of both dying noisily.
                start_new_session=True,
            )
        except BaseException:
            os.close(out_r)
            raise
        finally:
            os.close(out_w)  # the child holds its own copy: EOF comes when the child (and its children) let go
        stdout = os.fdopen(out_r, "rb", buffering=0)
        try:
            await loop.connect_read_pipe(lambda: _PipeLines(frames), stdout)
        except BaseException:
            stdout.close()
            transport.close()
            raise
        return asyncio.subprocess.Process(transport, protocol, loop), frames

    async def _read_stdout(self, _proc: Any, frames: _StdoutFrames) -> None:
        """Hand the child's frames on in stdout order until its stdout ends (all of them handled by then)."""
        await frames.consume()

    def stderr_summary(self, lines: int = STDERR_SHOWN) -> str:
        """The child's last stderr lines, joined (empty when it wrote none)."""
        return " | ".join(list(self.stderr_tail)[-lines:])

    def faults(self) -> str:
        """What this child did wrong so far (its output over the frame limit, lines that are not JSON-RPC, input it
        did not read), empty when nothing: a caller that times out is told."""
        said = [f"{n} {what}" for n, what in ((self.oversized, f"stdout lines over the frame limit (max_line_bytes = "
                                                               f"{self.max_line_bytes}) dropped"),
                                             (self.ignored_lines, "stdout lines that are not JSON-RPC ignored"),
                                             (self.unsent_refused, "frames refused: it is not reading its input"),
                                             (self.unread_kills, "restarts for reading none of its input")) if n]
        unsent = self.unsent()
        if unsent > UNREAD_NOTED_BYTES:
            said.append(f"{unsent} bytes of its input not read")
        return "; ".join(said)

    def unsent(self) -> int:
        """Bytes written to the current child that it has not read yet (0 when it is not running)."""
        proc = self._proc
        stdin = proc.stdin if proc is not None else None
        return stdin.transport.get_write_buffer_size() if stdin is not None and not stdin.transport.is_closing() else 0

    def exit_description(self, code: int | None = None) -> str:
        """How the child ended, for its callers: its exit status and its last stderr lines."""
        code = self.last_exit if code is None else code
        said = self.stderr_summary()
        why = self.last_exit_reason
        how = f"restarted: {why} (stopped, status {code})" if why else f"exited with status {code}"
        return f"upstream process {how}" + (f"; its last stderr lines: {said}" if said else "")

    async def _pump_stderr(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stderr is not None
        while True:
            try:
                line = await proc.stderr.readline()
            except (ValueError, ConnectionResetError):
                continue
            if not line:
                return
            self.output_seen.set()
            text = line.decode(errors="replace").rstrip()
            if text:
                self.stderr_tail.append(text[:STDERR_LINE_CHARS])
            if self.quiet:
                continue
            sys.stderr.write(f"[{self.name}] {text}\n")


class _StdoutFrames:
    """Fd 1 of one child generation, driven by the pipe's data callback (no reader task in between).

    Lines are cut (``LineSplitter``) and parsed as they arrive. A response (no ``method``) goes to ``on_response``
    right there when no earlier frame is still queued for, or inside, ``on_message``; everything else queues, in
    stdout order, for ``consume`` (the supervisor task), which offers queued responses first too and awaits
    ``on_message`` for the rest, one at a time. Bounded by ``MAX_QUEUED_FRAMES`` (the pipe pauses)."""

    def __init__(self, child: ChildProcess) -> None:
        self.child = child
        self.lines = LineSplitter(child.max_line_bytes)
        self.transport: asyncio.ReadTransport | None = None
        """The stdout pipe's transport (paused when the queue is full)."""
        self.queue: deque[tuple[Message, int, bool]] = deque()
        """(frame, its line's size, already declined by ``on_response``)."""
        self.queued_bytes = 0
        self.busy = False
        """``consume`` is handling a frame: a new response must wait behind it."""
        self.paused = False
        self.ended = False
        self.close_started = False
        self.dropped = 0
        """Frames dropped while closing (over the cap, where reading must go on to the end)."""
        self._wake: asyncio.Future[None] | None = None

    # --- the pipe's callbacks -------------------------------------------------------------------

    def data(self, data: bytes) -> None:
        for line in self.lines.feed(data):
            if type(line) is bytes:
                self._line(line)
            else:
                self._oversized(line)  # type: ignore[arg-type]

    def eof(self) -> None:
        if not self.ended:
            last = self.lines.finish()
            if isinstance(last, Oversized):
                self._oversized(last)
            elif last:
                self._line(last)
            self.ended = True
        self._notify()

    def _oversized(self, line: Oversized) -> None:
        """A line over the frame limit was dropped: the response it carried (when its ends name its id) is replaced
        by an error naming the limit, for its caller only; the frames after it are served as usual."""
        child = self.child
        child.oversized += 1
        rid = oversized_response_id(line)
        log.error("upstream %s: dropped a stdout line of %d bytes, over the frame limit of %d (max_line_bytes)%s",
                  child.name, line.size, child.max_line_bytes, "" if rid is None else f"; it answered request {rid!r}")
        if rid is not None:
            self._frame(over_limit_error(rid, line, child.max_line_bytes), 0)

    def closing(self) -> None:
        """The child is being closed: never pause again (frames over the cap are dropped from now on)."""
        self.close_started = True
        self._resume()

    def _line(self, line: bytes) -> None:
        child = self.child
        child.output_seen.set()
        try:
            msg = stdout_frame(line)
        except jsonrpc.FrameError as exc:
            child.ignored_lines += 1
            if child.ignored_lines <= LOGGED_LINES or not child.ignored_lines % 1000:  # a flood of them is not a log flood
                log.warning("upstream %s: ignoring non-JSON-RPC stdout line %d (%s): %.200r", child.name, child.ignored_lines,
                            exc.message, line.strip())
            return
        if msg is None:
            return
        self._frame(msg, len(line.strip()))

    def _frame(self, msg: Message, size: int) -> None:
        child = self.child
        offered = False
        if not self.queue and not self.busy and "method" not in msg and child.on_response is not None:
            offered = True
            try:
                if child.on_response(msg):
                    return
            except Exception:  # noqa: BLE001
                log.exception("upstream %s: message handler failed", child.name)
                return
        over = over_cap(len(self.queue), self.queued_bytes, size, child.max_line_bytes)
        if over and self.close_started:
            if not self.dropped:
                log.warning("upstream %s: closing; dropping its frames past %d queued", child.name, len(self.queue))
            self.dropped += 1
            return
        self.queue.append((msg, size, offered))
        self.queued_bytes += size
        if over:
            self._pause()
        self._notify()

    # --- the consumer -----------------------------------------------------------------------------

    async def consume(self) -> None:
        """Handle queued frames in order until stdout ended and all are handled."""
        child = self.child
        queue = self.queue
        while True:
            while queue:
                msg, size, offered = queue.popleft()
                self.queued_bytes -= size
                if self.paused and may_resume(len(queue), self.queued_bytes, child.max_line_bytes):
                    self._resume()
                self.busy = True
                try:
                    on_response = child.on_response
                    if offered or on_response is None or "method" in msg or not on_response(msg):
                        await child.on_message(msg)
                except Exception:  # noqa: BLE001
                    log.exception("upstream %s: message handler failed", child.name)
                finally:
                    self.busy = False
            if self.ended:
                return
            # Ends at the next queued frame, or when stdout ends (EOF, overflow); aclose cancels this task.
            self._wake = asyncio.get_running_loop().create_future()
            try:
                await self._wake
            finally:
                self._wake = None

    def _notify(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def _pause(self) -> None:
        if not self.paused and self.transport is not None and not self.transport.is_closing():
            self.paused = True
            self.transport.pause_reading()

    def _resume(self) -> None:
        if self.paused:
            self.paused = False
            if self.transport is not None and not self.transport.is_closing():
                self.transport.resume_reading()


class _PipeLines(asyncio.Protocol):
    """A child's stdout pipe into ``_StdoutFrames``, from the pipe's data callback."""

    def __init__(self, frames: _StdoutFrames) -> None:
        self.frames = frames

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.frames.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.frames.data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.frames.eof()


class _Adopted:
    """A ``subprocess.Popen`` started before the event loop, with the ``asyncio.subprocess.Process`` surface
    ``ChildProcess`` uses (stdin and stderr as asyncio streams, stdout read by ``_StdoutFrames``; the exit is awaited
    in a thread, as asyncio's own watcher does)."""

    def __init__(self, popen: subprocess.Popen[bytes], stdin: asyncio.StreamWriter, stderr: asyncio.StreamReader) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdin, self.stderr = stdin, stderr
        self._exit: asyncio.Future[int] = asyncio.get_running_loop().run_in_executor(None, popen.wait)

    @property
    def returncode(self) -> int | None:
        return self._exit.result() if self._exit.done() else None

    async def wait(self) -> int:
        return await asyncio.shield(self._exit)

    def terminate(self) -> None:
        if self.returncode is None:
            self.popen.terminate()

    def kill(self) -> None:
        if self.returncode is None:
            self.popen.kill()


async def _adopted(popen: subprocess.Popen[bytes], frames: _StdoutFrames, limit: int) -> Any:
    loop = asyncio.get_running_loop()
    assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
    await loop.connect_read_pipe(lambda: _PipeLines(frames), popen.stdout)
    stderr = asyncio.StreamReader(limit=limit)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stderr), popen.stderr)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, popen.stdin)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return _Adopted(popen, writer, stderr)


def _suppressed(step: Callable[[], None]) -> None:
    with contextlib.suppress(ProcessLookupError):
        step()

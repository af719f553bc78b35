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
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio

from mcp_eras.bridge import jsonrpc
from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.jsonrpc import Message
from mcp_eras.bridge.upstream import prespawn

log = logging.getLogger("mcp_bridge.process")

OnMessage = Callable[[Message], Awaitable[None]]
OnExit = Callable[[int], Awaitable[None]]


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
        self._proc: asyncio.subprocess.Process | None = None
        self._ready = asyncio.Event()
        self._closed = False
        self._supervisor: asyncio.Task[None] | None = None
        self._started = asyncio.Event()
        self._spawn_error: BaseException | None = None
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
            raise UpstreamError(f"upstream {self.name} is not running")
        data = jsonrpc.dumps(msg) + b"\n"
        stdin = proc.stdin
        try:
            if stdin.transport.is_closing():
                raise BrokenPipeError("stdin is closed")
            # One write call queues the whole frame, so frames never interleave; wait (drain: the child's
            # flow control, and where a dead child's pipe error surfaces) only when it could not all go out now.
            stdin.write(data)
            if stdin.transport.get_write_buffer_size():
                await stdin.drain()
        except (BrokenPipeError, ConnectionResetError, RuntimeError) as exc:
            raise UpstreamError(f"upstream {self.name} died: {exc}") from None

    def kill(self) -> None:
        """Kill the current child (the supervisor respawns it). For tests and `reload`."""
        if self._proc and self._proc.returncode is None:
            self._proc.kill()

    async def aclose(self) -> None:
        self._closed = True
        self._ready.clear()
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
        backoff = self.backoff_initial
        while not self._closed:
            try:
                adopt, self._adopt = self._adopt, None
                self._proc = await _adopted(adopt, self.max_line_bytes) if adopt is not None else await asyncio.create_subprocess_exec(
                    *self.argv,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    env=self.env,
                    cwd=self.cwd,
                    limit=self.max_line_bytes,
                    # Its own session: a terminal's Ctrl-C reaches the bridge only, which then stops
                    # the child in order (stdin closed, SIGTERM, SIGKILL) instead of both dying noisily.
                    start_new_session=True,
                )
            except OSError as exc:
                self._spawn_error = exc
                log.error("upstream %s: cannot spawn %s: %s", self.name, self.argv[0], exc)
                self._started.set()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, self.backoff_max)
                continue
            self.generation += 1
            self._spawn_error = None
            self._ready.set()
            self._started.set()
            log.info("upstream %s: started pid %s (generation %d)", self.name, self._proc.pid, self.generation)
            started_at = asyncio.get_running_loop().time()
            stderr_task = asyncio.create_task(self._pump_stderr(self._proc))
            await self._read_stdout(self._proc)
            self._ready.clear()
            code = await self._proc.wait()
            stderr_task.cancel()
            self.last_exit = code
            if self._closed:
                break
            self.restarts += 1
            log.warning("upstream %s: exited with %s; respawning", self.name, code)
            if self.on_exit is not None:
                try:
                    await self.on_exit(code)
                except Exception:  # noqa: BLE001 - a callback bug must not stop respawns
                    log.exception("upstream %s: exit handler failed", self.name)
            # Back off only when the child dies quickly (a crash loop), not after a long healthy run.
            if asyncio.get_running_loop().time() - started_at > 30:
                backoff = self.backoff_initial
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self.backoff_max)

    async def _read_stdout(self, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        while True:
            try:
                line = await proc.stdout.readline()
            except ValueError:
                # Line longer than the limit: the stream is unusable; kill the child.
                log.error("upstream %s: frame over %d bytes; restarting it", self.name, self.max_line_bytes)
                proc.kill()
                return
            except (ConnectionResetError, BrokenPipeError):
                return
            if not line:
                return
            self.output_seen.set()
            line = line.strip()
            if not line:
                continue
            try:
                msg = jsonrpc.parse_frame(line)
            except jsonrpc.FrameError as exc:
                log.warning("upstream %s: ignoring non-JSON-RPC stdout line (%s): %.200r", self.name, exc.message, line)
                continue
            try:
                on_response = self.on_response
                if on_response is None or "method" in msg or not on_response(msg):
                    await self.on_message(msg)
            except Exception:  # noqa: BLE001
                log.exception("upstream %s: message handler failed", self.name)

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
            if self.quiet:
                continue
            sys.stderr.write(f"[{self.name}] {line.decode(errors='replace').rstrip()}\n")


class _Adopted:
    """A ``subprocess.Popen`` started before the event loop, with the ``asyncio.subprocess.Process`` surface
    ``ChildProcess`` uses (pipes as asyncio streams; the exit is awaited in a thread, as asyncio's own watcher does)."""

    def __init__(self, popen: subprocess.Popen[bytes], stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader,
                 stderr: asyncio.StreamReader) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
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


async def _adopted(popen: subprocess.Popen[bytes], limit: int) -> Any:
    loop = asyncio.get_running_loop()
    assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
    readers = []
    for pipe in (popen.stdout, popen.stderr):
        reader = asyncio.StreamReader(limit=limit)
        await loop.connect_read_pipe(lambda r=reader: asyncio.StreamReaderProtocol(r), pipe)
        readers.append(reader)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, popen.stdin)
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return _Adopted(popen, writer, readers[0], readers[1])

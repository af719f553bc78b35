"""A stdio upstream's child process, pure: when to respawn it, and when its stdout must pause.

2025-11-25 basic/transports.mdx §stdio (and 2026-07-28 basic/transports/stdio.mdx): the server reads JSON-RPC
messages from stdin and writes them to stdout, newline-delimited; anything it writes to stdout must be a valid MCP
message. The bridge keeps one long-lived child per upstream session and respawns it when it dies, backing off while it
keeps dying; it reads stdout as fast as the frames are handled, and no faster. The shell
(``mcp_eras.bridge.upstream.process``) spawns, reads, writes and sleeps.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message

HEALTHY_RUN_S = 30.0
"""A child that ran longer than this before dying was healthy: the next respawn is quick again."""

MAX_QUEUED_FRAMES = 1024
"""Frames of one child waiting to be handled (or behind one that is) before its stdout pipe is paused; also paused
when they hold more than ``max_line_bytes``. Reading resumes once both are below half. Past the cap only the rest of
the read that reached it still arrives. While the child is being closed nothing pauses: frames over the cap are
dropped instead (its exit needs its stdout read to the end)."""


@dataclass
class Backoff:
    """Respawn delays: doubling from ``initial`` up to ``maximum`` while the child keeps failing, back to ``initial``
    after a healthy run (a crash loop backs off; a rare crash is repaired at once)."""

    initial: float
    maximum: float
    delay: float = -1.0

    def __post_init__(self) -> None:
        if self.delay < 0:
            self.delay = self.initial

    def spawn_failed(self) -> float:
        """The child could not be started: how long to wait before the next try."""
        delay = self.delay
        self.delay = min(delay * 2, self.maximum)
        return delay

    def exited(self, ran_for: float) -> float:
        """The child died after ``ran_for`` seconds: how long to wait before respawning it."""
        if ran_for > HEALTHY_RUN_S:
            self.delay = self.initial
        return self.spawn_failed()


def stdout_frame(line: bytes) -> Message | None:
    """One line of the child's stdout as a frame (None for a blank line); raises ``FrameError`` for a line that is
    not a JSON-RPC message."""
    line = line.strip()
    if not line:
        return None
    return jsonrpc.parse_frame(line)


def over_cap(queued: int, queued_bytes: int, size: int, max_line_bytes: int) -> bool:
    """Whether one more frame of ``size`` bytes takes the queue over its bounds (``MAX_QUEUED_FRAMES``)."""
    return queued >= MAX_QUEUED_FRAMES or queued_bytes + size > max_line_bytes


def may_resume(queued: int, queued_bytes: int, max_line_bytes: int) -> bool:
    """Whether a paused stdout may be read again: the queue is down to half its bounds."""
    return queued <= MAX_QUEUED_FRAMES // 2 and queued_bytes <= max_line_bytes // 2

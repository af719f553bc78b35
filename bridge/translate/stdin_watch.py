"""When a stdio child is wedged on its input, pure: it reads none of what waits for it for a whole window.

2025-11-25 basic/transports.mdx §stdio (and 2026-07-28 basic/transports/stdio.mdx): the server reads JSON-RPC
messages from its standard input. One that stops reading while input waits serves no caller again: its callers time
out, later ones are refused. The shell (``mcp_eras.bridge.upstream.process``) samples the child's stdin while more
than ``limit`` bytes wait unsent (past a pipe's buffer: a child that is merely busy never gets there), and stops the
child when the samples show that it read nothing for the whole window; the supervisor respawns it.

A slow reader is kept: any byte read restarts the window. So is a child busy with a long call while its input is below
``limit``: it is never watched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

STALL_GRACE_S = 1.0
"""The window is the child's send wait plus this: a sender waiting for room is told first (named), then the child is
stopped."""
MAX_TICK_S = 1.0
"""The longest interval between two samples."""

Verdict = Literal["clear", "watching", "wedged"]


@dataclass
class InputWatch:
    """Samples of one child generation's input, in order. ``read`` is what the child took from its stdin so far
    (bytes written to it minus those still unsent), ``unsent`` what still waits."""

    limit: int
    window: float
    read: int = -1
    since: float = 0.0

    @classmethod
    def for_send_wait(cls, limit: int, send_wait: float) -> InputWatch:
        return cls(limit, send_wait + STALL_GRACE_S)

    @property
    def tick(self) -> float:
        """How long until the next sample."""
        return min(MAX_TICK_S, self.window / 4)

    def verdict(self, now: float, read: int, unsent: int) -> Verdict:
        """``clear``: the input is below the limit (stop watching); ``watching``: it is above and the child read some
        of it within the window (sample again after ``tick``); ``wedged``: above, and nothing read for the window."""
        if unsent <= self.limit:
            self.read = -1
            return "clear"
        if read != self.read:
            self.read, self.since = read, now
            return "watching"
        return "wedged" if now - self.since >= self.window else "watching"

    def reason(self, unsent: int) -> str:
        """Why the child is stopped, for its log line and its callers."""
        return f"it read none of its input for {self.window:g} s; {unsent} bytes unread"

"""Killing a test's own processes by pid, safely.

Tests kill upstream children by the pid a bridge reports (``/healthz``, fleet status). Pid numbers are
reused quickly on a busy machine (``/proc/sys/kernel/pid_max`` is often 32,768 and a CI run starts
thousands of processes), so a pid read a moment ago may already name another process — another test's,
or the test runner's own shell. ``kill_descendant`` signals a pid only while it is still a descendant of
this test process."""

from __future__ import annotations

import os
import signal
from pathlib import Path


def parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])  # field 4 of stat(5), after the command name


def is_descendant(pid: int, ancestor: int | None = None) -> bool:
    ancestor = os.getpid() if ancestor is None else ancestor
    seen = 0
    while pid > 1 and seen < 64:
        parent = parent_of(pid)
        if parent is None:
            return False
        if parent == ancestor:
            return True
        pid, seen = parent, seen + 1
    return False


def kill_descendant(pid: int, sig: int = signal.SIGKILL) -> bool:
    """Send ``sig`` to ``pid`` if it is (still) a descendant of this test process; False when it is not
    (it has exited: a reused pid is left alone)."""
    if not is_descendant(pid):
        return False
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return False
    return True

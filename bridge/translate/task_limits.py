"""Caps on what tasks may hold in a bridge instance, pure: task records and the dedicated 2025 task sessions.

Both eras let a receiver refuse work it cannot hold and forget a task once its TTL has passed (2025-11-25
``basic/utilities/tasks.mdx`` §Task Lifecycle "Receivers MAY delete tasks and their results after ttl";
``io.modelcontextprotocol/tasks`` ext tasks.mdx §Task Lifecycle). The bridge holds, per instance:

* task records: at most ``per_principal`` unfinished tasks per principal, ``records_per_principal`` records of
  one principal (past it that principal's oldest *finished* records are forgotten first: nobody else's), and
  ``total`` records in all (past it expired records are swept; then the caller is refused);
* direction A's task sessions (one upstream 2025 session, for stdio a child, per principal and input
  capabilities: 2025 tasks are bound to the session that created them): at most ``sessions`` in all and
  ``sessions_per_principal`` per principal. A session with no unfinished task, no request in flight and unused
  for ``min_idle_ms`` is closed to make room; one unused for ``idle_ms`` is closed anyway.

A refusal is the bridge's limit error, -32000 with ``data.limit`` naming the cap (HTTP 503 on the 2026 front),
the same as every other cap (``mcp_eras.bridge.translate.errors.LIMIT_REACHED``). Decisions only: the shell
(``mcp_eras.bridge.layers.tasks``) counts, closes and deletes.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from mcp_eras.bridge.translate.errors import LIMIT_REACHED, LIMIT_REACHED_STATUS
from mcp_eras.bridge.translate.jsonrpc import FrameError
from mcp_eras.bridge.translate.tasks import TaskRecord

TASKS_PER_PRINCIPAL = "tasks_per_principal"
TASK_RECORDS_TOTAL = "tasks_total"
TASK_SESSIONS = "task_sessions"
TASK_SESSIONS_PER_PRINCIPAL = "task_sessions_per_principal"


@dataclass(frozen=True)
class TaskLimits:
    per_principal: int = 64
    """Unfinished tasks one principal may have."""
    records_per_principal: int = 256
    """Task records (finished ones included) kept for one principal; its oldest finished ones go first."""
    total: int = 10_000
    """Task records one instance holds."""
    sessions: int = 64
    """Direction A: dedicated 2025 task sessions (stdio: children) in all."""
    sessions_per_principal: int = 8
    """Direction A: task sessions one principal may hold (one per set of input capabilities it declares)."""
    idle_ms: int = 600_000
    """A task session without unfinished tasks or requests in flight this long is closed."""
    min_idle_ms: int = 1_000
    """At a session cap, only a session unused this long may be closed to make room (one just handed to a
    caller is not taken away from it)."""


def refusal(limit: str, cap: int) -> FrameError:
    """The named limit error for ``limit`` (its cap in the message)."""
    what = {TASKS_PER_PRINCIPAL: "Unfinished task limit reached", TASK_RECORDS_TOTAL: "Task limit reached",
            TASK_SESSIONS: "Task session limit reached",
            TASK_SESSIONS_PER_PRINCIPAL: "Task session limit reached for this caller"}[limit]
    return FrameError(LIMIT_REACHED, f"{what} ({cap})", {"limit": limit}, http_status=LIMIT_REACHED_STATUS)


# --- task records -------------------------------------------------------------------------------------


class _Verdict:
    """A decision that may name the cap it refuses at (``refused``, ``cap``: fields of the subclass)."""

    refused: str | None
    cap: int

    def error(self) -> FrameError:
        assert self.refused is not None
        return refusal(self.refused, self.cap)


@dataclass(frozen=True)
class Admission(_Verdict):
    """May a principal create one more task: ``forget`` these record ids first (expired ones, and this
    principal's oldest finished ones over its record cap), then create unless ``refused`` names a cap."""

    forget: tuple[str, ...] = ()
    refused: str | None = None
    cap: int = 0


def admit(mine: Iterable[TaskRecord], total: int, limits: TaskLimits, now_ms: int,
          others_expired: Iterable[str] = (), pending: int = 0) -> Admission:
    """The admission of one new task for a principal whose records are ``mine``, with ``total`` records held
    in all. ``others_expired``: expired records of any principal, swept only when the total is at its cap
    (the shell lists them lazily: an iterable read only then). ``pending``: this principal's creations
    admitted but not recorded yet (unfinished tasks; ``total`` includes everybody's)."""
    mine = list(mine)
    forget = [r.bridge_id for r in mine if r.expired(now_ms)]
    kept = [r for r in mine if not r.expired(now_ms)]
    if sum(1 for r in kept if not r.terminal) + pending >= limits.per_principal:
        return Admission(tuple(forget), TASKS_PER_PRINCIPAL, limits.per_principal)
    over = len(kept) + pending + 1 - limits.records_per_principal
    if over > 0:
        finished = sorted((r for r in kept if r.terminal), key=lambda r: (r.updated_ms, r.bridge_id))
        forget.extend(r.bridge_id for r in finished[:over])
    if total - len(forget) >= limits.total:
        forget.extend(i for i in others_expired if i not in forget)
        if total - len(forget) >= limits.total:
            return Admission(tuple(forget), TASK_RECORDS_TOTAL, limits.total)
    return Admission(tuple(forget))


# --- direction A's task sessions ----------------------------------------------------------------------


@dataclass(frozen=True)
class SessionInfo:
    """What the caps need to know of one task session."""

    key: Hashable
    principal: str | None
    busy: bool
    """An unfinished task on it, or a request in flight: never closed for room or idleness."""
    last_used_ms: int


@dataclass(frozen=True)
class Room(_Verdict):
    """Open a new session for the caller after closing ``close``; or refuse, naming the cap."""

    close: tuple[Hashable, ...] = ()
    refused: str | None = None
    cap: int = 0


def _oldest_idle(sessions: Iterable[SessionInfo], now_ms: int, min_idle_ms: int) -> SessionInfo | None:
    idle = [s for s in sessions if not s.busy and now_ms - s.last_used_ms >= min_idle_ms]
    return min(idle, key=lambda s: s.last_used_ms) if idle else None


def make_room(sessions: list[SessionInfo], principal: str | None, limits: TaskLimits, now_ms: int) -> Room:
    """Room for one more task session of ``principal``: the caller's own cap first (its own idle session is
    closed for it), then the instance's (the least recently used idle session of anyone)."""
    close: list[Hashable] = []
    mine = [s for s in sessions if s.principal == principal]
    if len(mine) >= limits.sessions_per_principal:
        victim = _oldest_idle(mine, now_ms, limits.min_idle_ms)
        if victim is None:
            return Room(refused=TASK_SESSIONS_PER_PRINCIPAL, cap=limits.sessions_per_principal)
        close.append(victim.key)
    if len(sessions) - len(close) >= limits.sessions:
        victim = _oldest_idle((s for s in sessions if s.key not in close), now_ms, limits.min_idle_ms)
        if victim is None:
            return Room(refused=TASK_SESSIONS, cap=limits.sessions)
        close.append(victim.key)
    return Room(tuple(close))


def idle_sessions(sessions: Iterable[SessionInfo], limits: TaskLimits, now_ms: int) -> list[Hashable]:
    """Sessions to close because nothing used them for ``idle_ms``."""
    return [s.key for s in sessions if not s.busy and now_ms - s.last_used_ms >= limits.idle_ms]


def session_info(key: Hashable, principal: str | None, over: bool, records: Iterable[TaskRecord], session: str,
                 in_flight: int, last_used_ms: int) -> SessionInfo:
    """One task session as the caps see it: a session that is ``over`` (lost or closed) is free to drop at once;
    another is busy while one of its principal's ``records`` on it is unfinished or a request is in flight."""
    if over:
        return SessionInfo(key, principal, busy=False, last_used_ms=0)
    live = any(not r.terminal and r.session == session for r in records)
    return SessionInfo(key, principal, busy=live or in_flight > 0, last_used_ms=last_used_ms)


def reap_period_s(limits: TaskLimits) -> float:
    """How often idle task sessions are looked for: a quarter of the idle timeout, between 1 s and 60 s."""
    return max(1.0, min(60.0, limits.idle_ms / 4000))


def limits_for(tasks_per_principal: int, tasks_max: int, sessions: int, sessions_per_principal: int,
               idle_s: float) -> TaskLimits:
    """The caps from the bridge's settings: a principal keeps up to four records per unfinished task it may have
    (its finished ones stay readable for a while), task sessions idle as long as pooled sessions."""
    return TaskLimits(per_principal=tasks_per_principal, records_per_principal=4 * tasks_per_principal, total=tasks_max,
                      sessions=sessions, sessions_per_principal=sessions_per_principal, idle_ms=int(idle_s * 1000))

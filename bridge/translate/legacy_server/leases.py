"""Direction A, pure: who gets an input lease of a 2025 session when one is freed.

A 2025 server attributes its server->client requests to the one call running input-capable on a session (the
session's input lease, ``pool.Pool``); callers of an identity whose sessions all hold one wait. This is the order
they are served in, as plain data: waiters of one identity first come first served and woken one per free lease (no
thundering herd), a parked call resuming on its own session handed that session's lease before any of them (so
nobody can overtake it), and a waiter that goes away after its wake-up passing the wake-up on (no lost wake-up).

Waiters are tokens the shell (``mcp_eras.bridge.upstream.legacy``) maps to what it awaits; ``live`` tells whether a
token still waits (a waiter may go away at any time: its token is then skipped where it is found).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from mcp_eras.bridge.translate.legacy_server.pool import Limits, Pool

Live = Callable[[int], bool]


@dataclass
class LeaseLine:
    """The lease waiters of one upstream: by identity key, and the resuming parked calls by session id."""

    queues: dict[str, deque[int]] = field(default_factory=dict)
    """Identity key -> waiting tokens, first come first served."""
    woken: dict[str, int] = field(default_factory=dict)
    """Identity key -> waiters woken for a free lease that have not taken it yet."""
    resumers: dict[str, deque[tuple[int, int]]] = field(default_factory=dict)
    """Session id -> (upstream id, token) of parked calls of that session waiting to run again."""

    def idle(self) -> bool:
        """Nobody waits (the usual case: a lease is free whenever a call begins)."""
        return not self.resumers and not self.queues

    def waiting(self, key: str, live: Live) -> bool:
        """Whether callers of identity ``key`` wait (a newcomer then queues behind them, never overtakes)."""
        queue = self.queues.get(key)
        while queue and not live(queue[0]):
            queue.popleft()
        return bool(queue)

    def join(self, key: str, token: int, *, at_head: bool) -> None:
        """Queue a caller; ``at_head``: a woken waiter that lost its lease anyway goes back to the head."""
        queue = self.queues.setdefault(key, deque())
        queue.appendleft(token) if at_head else queue.append(token)

    def resume(self, sid: str, upstream_id: int, token: int) -> None:
        """A parked call of session ``sid`` waits to run again: it gets that session's lease first."""
        self.resumers.setdefault(sid, deque()).append((upstream_id, token))

    def took_wake(self, key: str) -> None:
        """A woken waiter of ``key`` ran (or went away): it no longer counts as woken."""
        left = self.woken.get(key, 0) - 1
        if left > 0:
            self.woken[key] = left
        else:
            self.woken.pop(key, None)

    def wake(self, key: str, pool: Pool, limits: Limits, live: Live) -> list[int]:
        """The waiters of ``key`` to wake now: one per free lease not already promised to a woken waiter."""
        queue = self.queues.get(key)
        if not queue:
            return []
        wanted = pool.free_leases(key, limits) - self.woken.get(key, 0)
        out = []
        while queue and wanted > 0:
            token = queue.popleft()
            if live(token):
                out.append(token)
                self.woken[key] = self.woken.get(key, 0) + 1
                wanted -= 1
        if not queue:
            self.queues.pop(key, None)
        return out

    def freed(self, sid: str, pool: Pool, limits: Limits, live: Live) -> list[int]:
        """A lease of session ``sid`` may be free: the tokens to wake. A parked call resuming there takes it first
        (relocked here, so nobody can overtake it); then the identity's next waiters."""
        if self.idle():
            return []
        rec = pool.sessions.get(sid)
        if rec is None:
            return []
        out = []
        resumers = self.resumers.get(sid)
        while resumers and rec.lease is None:
            upstream_id, token = resumers.popleft()
            if live(token) and pool.relock(sid, upstream_id):
                out.append(token)
        if not resumers:
            self.resumers.pop(sid, None)
        return out + self.wake(rec.key, pool, limits, live)

    def everyone(self) -> list[int]:
        """Shutting down: every token, to be woken so each waiter sees it and is answered."""
        out = [token for queue in self.queues.values() for token in queue]
        out += [token for resumers in self.resumers.values() for _uid, token in resumers]
        self.queues.clear()
        self.resumers.clear()
        return out

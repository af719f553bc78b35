"""mcp_eras.bridge.translate.task_limits: admission of new tasks and room for task sessions, decisions only."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate import task_limits as tl
from mcp_eras.bridge.translate import tasks as t
from mcp_eras.bridge.translate.errors import LIMIT_REACHED

import spec

NOW = 1_764_000_000_000
LIMITS = tl.TaskLimits(per_principal=2, records_per_principal=4, total=10, sessions=3, sessions_per_principal=2,
                       idle_ms=60_000, min_idle_ms=1_000)


def record(bridge_id: str, status: str = "working", principal: str = "alice", age_ms: int = 0,
           ttl_ms: int | None = 60_000) -> t.TaskRecord:
    return t.TaskRecord(bridge_id=bridge_id, upstream_id="u", principal=principal, client_era="2026-07-28",
                        upstream_era="2025-11-25", status=status, created_ms=NOW - age_ms, updated_ms=NOW - age_ms,
                        ttl_ms=ttl_ms)


def test_room_for_a_task_under_every_cap() -> None:
    assert tl.admit([record("a")], total=1, limits=LIMITS, now_ms=NOW) == tl.Admission()


def test_unfinished_tasks_per_principal_are_capped_and_named() -> None:
    decision = tl.admit([record("a"), record("b")], total=2, limits=LIMITS, now_ms=NOW)
    assert decision.refused == tl.TASKS_PER_PRINCIPAL
    error = decision.error()
    assert error.code == LIMIT_REACHED and error.data == {"limit": "tasks_per_principal"} and error.http_status == 503
    assert error.message == "Unfinished task limit reached (2)"
    error.id = 7
    spec.modern("JSONRPCErrorResponse", error.to_response())
    spec.legacy("JSONRPCErrorResponse", error.to_response())


def test_creations_under_way_count_as_unfinished() -> None:
    assert tl.admit([record("a")], total=1, limits=LIMITS, now_ms=NOW, pending=1).refused == tl.TASKS_PER_PRINCIPAL


def test_finished_and_expired_tasks_do_not_count_and_expired_ones_are_swept() -> None:
    mine = [record("done", "completed"), record("old", age_ms=61_000), record("a")]
    decision = tl.admit(mine, total=3, limits=LIMITS, now_ms=NOW)
    assert decision == tl.Admission(forget=("old",))


def test_over_its_record_cap_a_principal_forgets_its_own_oldest_finished_tasks() -> None:
    mine = [record("f1", "completed", age_ms=30), record("f2", "failed", age_ms=20), record("f3", "cancelled", age_ms=10),
            record("a")]
    decision = tl.admit(mine, total=4, limits=LIMITS, now_ms=NOW)
    assert decision == tl.Admission(forget=("f1",))  # room for exactly one more: the oldest finished one goes


def test_the_total_sweeps_everybody_expired_and_only_then_refuses() -> None:
    swept = tl.admit([], total=10, limits=LIMITS, now_ms=NOW, others_expired=iter(["x", "y"]))
    assert swept == tl.Admission(forget=("x", "y"))
    full = tl.admit([], total=10, limits=LIMITS, now_ms=NOW, others_expired=iter([]))
    assert full.refused == tl.TASK_RECORDS_TOTAL and full.error().data == {"limit": "tasks_total"}


def test_others_expired_is_not_read_below_the_total() -> None:
    def never() -> object:
        raise AssertionError("read below the cap")
        yield  # pragma: no cover

    assert tl.admit([], total=9, limits=LIMITS, now_ms=NOW, others_expired=never()) == tl.Admission()


def session(key: str, principal: str, busy: bool = False, idle_ms: int = 5_000) -> tl.SessionInfo:
    return tl.SessionInfo(key, principal, busy, NOW - idle_ms)


def test_room_for_a_session_below_the_caps() -> None:
    assert tl.make_room([session("a1", "alice")], "bob", LIMITS, NOW) == tl.Room()


def test_at_the_instance_cap_the_least_recently_used_idle_session_is_closed() -> None:
    sessions = [session("a1", "alice", idle_ms=5_000), session("b1", "bob", idle_ms=9_000), session("c1", "carol", busy=True)]
    assert tl.make_room(sessions, "dave", LIMITS, NOW) == tl.Room(close=("b1",))


def test_busy_and_just_used_sessions_are_never_taken_and_the_caller_is_refused_by_name() -> None:
    sessions = [session("a1", "alice", busy=True), session("b1", "bob", idle_ms=500), session("c1", "carol", busy=True)]
    room = tl.make_room(sessions, "dave", LIMITS, NOW)
    assert room.refused == tl.TASK_SESSIONS and room.error().message == "Task session limit reached (3)"


@pytest.mark.parametrize(("busy", "expected"), [
    (False, tl.Room(close=("a1",))),
    (True, tl.Room(refused=tl.TASK_SESSIONS_PER_PRINCIPAL, cap=2)),
])
def test_a_principal_at_its_own_cap_gives_up_its_own_idle_session_never_anyone_elses(busy: bool, expected: tl.Room) -> None:
    sessions = [session("a1", "alice", busy=busy, idle_ms=9_000), session("a2", "alice", busy=True),
                session("b1", "bob", idle_ms=60_000)]
    assert tl.make_room(sessions, "alice", LIMITS, NOW) == expected


def test_both_caps_at_once_close_two() -> None:
    sessions = [session("a1", "alice", idle_ms=2_000), session("a2", "alice", busy=True), session("b1", "bob", idle_ms=3_000)]
    assert tl.make_room(sessions, "alice", LIMITS, NOW) == tl.Room(close=("a1",))  # one closed frees both caps
    sessions.append(session("c1", "carol", idle_ms=1_500))
    limits = tl.TaskLimits(sessions=3, sessions_per_principal=2, min_idle_ms=1_000)
    assert tl.make_room(sessions, "alice", limits, NOW) == tl.Room(close=("a1", "b1"))  # then the LRU of the rest


def test_idle_sessions_are_the_unused_ones_past_the_idle_timeout() -> None:
    sessions = [session("a1", "alice", idle_ms=60_000), session("b1", "bob", busy=True, idle_ms=90_000),
                session("c1", "carol", idle_ms=59_999)]
    assert tl.idle_sessions(sessions, LIMITS, NOW) == ["a1"]

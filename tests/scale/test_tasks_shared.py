"""Tasks on the shared store, in process: the owner encoded in a scaled-out task id, the take-over rule
(pure), and the write-behind copy of records (the latest version wins; a store error is counted)."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.scaleout.tasks import SPACE, SharedTaskStore, minter
from mcp_eras.bridge.store import StoreError
from mcp_eras.bridge.store.memory import MemoryStore
from mcp_eras.bridge.translate import tasks as tk

pytestmark = pytest.mark.anyio


def record(bridge_id: str, upstream_era: str, status: str = "working") -> tk.TaskRecord:
    return tk.TaskRecord(bridge_id=bridge_id, upstream_id="u1", principal="alice", client_era="2026-07-28",
                         upstream_era=upstream_era, status=status, created_ms=1, updated_ms=1, ttl_ms=60_000)


def test_owner_instance_of_a_task_id() -> None:
    minted = minter("host.example-42")()
    assert tk.owner_instance(minted) == "host.example-42"
    assert minted != minter("host.example-42")()
    assert tk.owner_instance("no-owner") is None and tk.owner_instance("x.") is None


@pytest.mark.parametrize(("era", "lost"), [("2025-11-25", True), ("2026-07-28", False)])
def test_taken_over(era: str, lost: bool) -> None:
    r = record("t.a", era)
    assert tk.taken_over(r, "bridge instance a is gone", 5) is lost
    if lost:
        assert r.status == "failed" and r.error == {"code": -32603, "message": "Upstream task lost: bridge instance a is gone"}
    else:
        assert r.status == "working" and r.error is None
    done = record("t.b", "2025-11-25", status="completed")
    tk.taken_over(done, "gone", 5)
    assert done.status == "completed"  # terminal statuses never change


async def test_records_are_copied_latest_wins() -> None:
    store = MemoryStore()
    errors: list[StoreError] = []
    shared = SharedTaskStore(store, errors.append)
    r = record("t.a", "2025-11-25")
    shared.put(r)
    r.status = "completed"
    shared.put(r)
    await shared.flush()
    copy = await shared.shared("t.a")
    assert copy is not None and copy.status == "completed" and copy.to_json() == r.to_json()
    assert (await store.cache_get(SPACE, "t.a"))["status"] == "completed"
    assert errors == []


async def test_store_error_is_reported_and_local_copy_kept() -> None:
    store = MemoryStore()

    async def down(*_args: object) -> None:
        raise StoreError("redis://db:6379/0", "ConnectionError: refused")

    store.cache_put = down  # type: ignore[method-assign]
    errors: list[StoreError] = []
    shared = SharedTaskStore(store, errors.append)
    shared.put(record("t.a", "2025-11-25"))
    await shared.flush()
    assert len(errors) == 1 and shared.get("t.a") is not None and len(shared) == 1


def test_listed_everywhere_merges_own_and_shared_records() -> None:
    own = record("t.a", "2025-11-25", status="completed")
    stale = {**record("t.a", "2025-11-25").to_json()}  # the shared copy of a record held here: the own one wins
    other = {**record("t.b", "2025-11-25").to_json(), "created_ms": 0}
    foreign = {**record("t.c", "2025-11-25").to_json(), "principal": "mallory"}
    expired = {**record("t.d", "2025-11-25").to_json(), "ttl_ms": 1}
    listed = tk.listed_everywhere([own], [stale, other, foreign, expired, {"garbage": 1}], "alice", now_ms=10)
    assert [(r.bridge_id, r.status) for r in listed] == [("t.b", "working"), ("t.a", "completed")]
    assert tk.principal_index("alice") != tk.principal_index("bob")
    assert tk.principal_index(None) != tk.principal_index("")


async def test_records_are_filed_under_their_principal_and_republished() -> None:
    store = MemoryStore()
    shared = SharedTaskStore(store, lambda exc: None)
    shared.put(record("t.a", "2025-11-25"))
    await shared.flush()
    assert [r.bridge_id for r in await shared.everywhere("alice", 5)] == ["t.a"]
    lost_store = MemoryStore()  # the store lost everything (restarted empty)
    shared.store = lost_store
    await shared.republish()
    assert (await lost_store.cache_get(SPACE, "t.a"))["bridge_id"] == "t.a"
    other = SharedTaskStore(lost_store, lambda exc: None)
    assert [r.bridge_id for r in await other.everywhere("alice", 5)] == ["t.a"]

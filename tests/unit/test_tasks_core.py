"""mcp_eras.bridge.translate.tasks: the record round-trips through JSON, owner binding, -32021, input keys."""

from __future__ import annotations

import json

import pytest

from mcp_eras.bridge.translate import tasks as t
from mcp_eras.bridge.translate.jsonrpc import INVALID_PARAMS, MISSING_CLIENT_CAPABILITY, FrameError

import spec

NOW = 1_764_000_000_000


def record(**kw) -> t.TaskRecord:
    base = dict(bridge_id="b1", upstream_id="u1", principal="alice", client_era="2026-07-28", upstream_era="2025-11-25",
                status="working", created_ms=NOW, updated_ms=NOW, ttl_ms=60_000, poll_interval_ms=500)
    base.update(kw)
    return t.TaskRecord(**base)


def test_record_round_trips_through_json_with_inputs():
    rec = record()
    rec.inputs["input-1"] = t.InputEntry("input-1", "elicitation/create", {"message": "hi"}, peer_id=7)
    again = t.TaskRecord.from_json(json.loads(json.dumps(rec.to_json())))
    assert again == rec
    assert again.pending_inputs()["input-1"].peer_id == 7


def test_store_keeps_json_and_lists_by_owner_and_session():
    store = t.MemoryTaskStore()
    store.put(record(bridge_id="a", session="s1", created_ms=NOW + 1))
    store.put(record(bridge_id="b", session="s2"))
    store.put(record(bridge_id="c", principal="bob"))
    assert [r.bridge_id for r in store.owned_by("alice")] == ["b", "a"]
    assert [r.bridge_id for r in store.owned_by("alice", "s1")] == ["a"]
    got = store.get("a")
    assert got is not None
    got.status = "completed"
    assert store.get("a").status == "working", "a read record is a copy; only put() changes the store"


@pytest.mark.parametrize("principal, task_id", [("bob", "b1"), ("alice", "guessed"), (None, "b1")])
def test_foreign_and_guessed_ids_get_the_same_not_found(principal, task_id):
    store = t.MemoryTaskStore()
    store.put(record())
    with pytest.raises(FrameError) as info:
        t.owned(store, principal, task_id, NOW)
    assert info.value.code == INVALID_PARAMS
    assert info.value.message == t.NOT_FOUND_MESSAGE


def test_expired_record_is_gone():
    store = t.MemoryTaskStore()
    store.put(record(ttl_ms=1000))
    assert t.owned(store, "alice", "b1", NOW + 999).bridge_id == "b1"
    with pytest.raises(FrameError):
        t.owned(store, "alice", "b1", NOW + 1000)
    assert store.get("b1") is None


def test_missing_extension_error_is_the_2026_schema_error():
    err = t.missing_extension(5)
    assert err.code == MISSING_CLIENT_CAPABILITY
    spec.modern("MissingRequiredClientCapabilityError", err.to_response())


def test_declares_extension_reads_per_request_capabilities():
    def req(caps):
        return {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "x", "_meta": {"io.modelcontextprotocol/clientCapabilities": caps}}}
    assert t.declares_extension(req({"extensions": {t.EXTENSION: {}}}))
    assert not t.declares_extension(req({}))
    assert not t.declares_extension(req({"extensions": {t.EXTENSION: True}}))


def test_task_id_param():
    assert t.task_id_param({"taskId": "x"}) == "x"
    for bad in (None, {}, {"taskId": 3}, {"taskId": ""}):
        with pytest.raises(FrameError):
            t.task_id_param(bad)


def test_input_keys_are_unique_and_capped():
    rec = record()
    keys = {t.new_input_key(rec) for _ in range(t.MAX_INPUTS_PER_TASK)}
    assert len(keys) == t.MAX_INPUTS_PER_TASK
    with pytest.raises(FrameError, match="limit"):
        t.new_input_key(rec)


def test_lost_fails_only_live_tasks():
    rec = record()
    t.lost(rec, "child exited", NOW + 5)
    assert rec.status == "failed" and rec.error["code"] == -32603
    done = record(status="completed", result={"content": []})
    t.lost(done, "child exited", NOW + 5)
    assert done.status == "completed"


def test_iso_timestamps():
    assert t.iso(0) == "1970-01-01T00:00:00.000Z"


def test_strip_related_task():
    obj = {"a": 1, "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "x"}, "k": 2}}
    assert t.strip_related_task(obj) == {"a": 1, "_meta": {"k": 2}}
    assert t.strip_related_task({"_meta": {"io.modelcontextprotocol/related-task": {}}}) == {}

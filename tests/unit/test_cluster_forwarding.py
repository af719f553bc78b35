"""The forwarding between instances as pure code (``mcp_eras.bridge.translate.cluster``): the owner of a retry, the
signed body and its check, the NDJSON stream, the answer when the owner is gone, the shared discover cache."""

from __future__ import annotations

import hashlib
import hmac

import orjson
import pytest

from mcp_eras.bridge.translate import cluster as fw
from mcp_eras.bridge.translate.errors import BAD_REQUEST_STATUS, CONTENT_TOO_LARGE_STATUS, FORBIDDEN_STATUS

KEY = fw.forward_key(b"k" * 32)
NOW = 1_800_000_000_000
CALLER = {"principal": "alice", "authorization": "Bearer t", "trace": {"traceparent": "00-a-b-01"}, "client_era": "2025-11-25"}
RETRY = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "x", "requestState": "sealed", "inputResponses": {}}}


def test_the_forward_key_is_one_way_and_the_signature_an_hmac() -> None:
    assert KEY != b"k" * 32 and len(KEY) == 32
    assert fw.forward_key(b"other" * 8) != KEY
    assert fw.sign(KEY, b"body") == hmac.new(KEY, b"body", hashlib.sha256).hexdigest()


def test_only_an_mrtr_retry_with_request_state_names_an_owner() -> None:
    assert fw.sealed_state(RETRY) == "sealed"
    assert fw.sealed_state({**RETRY, "params": {"name": "x"}}) is None
    assert fw.sealed_state({**RETRY, "method": "tools/list"}) is None
    assert fw.sealed_state({**RETRY, "params": ["requestState"]}) is None
    assert fw.runs_here(None, "b1") and fw.runs_here("b1", "b1") and not fw.runs_here("b2", "b1")


def test_a_gone_owner_is_the_documented_invalid_state_error() -> None:
    """2026-07-28 basic/patterns/mrtr.mdx §Request State: a state the server cannot use is -32602."""
    assert fw.owner_gone("b2", None) == "bridge instance b2 is gone"
    assert fw.owner_gone("b2", {"started_ms": 1}) == "bridge instance b2 is gone"
    assert fw.owner_gone("b2", {"url": "http://b2"}) is None
    answer = fw.lost(7, fw.no_answer("b2"))
    assert answer["error"] == {"code": -32602, "message": "Invalid requestState: lost (bridge instance b2 did not answer)",
                               "data": {"reason": "lost"}}
    assert fw.refused("b2", 403) == "bridge instance b2 refused the forward (403)"
    assert fw.store_down(7, "redis down", "redis")["error"] == {"code": -32603, "message": "Internal error: redis down",
                                                                "data": {"store": "redis"}}


def test_a_signed_body_round_trips() -> None:
    body = fw.forward_body(RETRY, CALLER, "b1", NOW)
    assert orjson.loads(body)["from"] == "b1"
    got = fw.read_forward(body, fw.sign(KEY, body), KEY, NOW + fw.FORWARD_SKEW_MS, 1000)
    assert isinstance(got, fw.Forwarded)
    assert (got.request, got.principal, got.authorization, got.trace, got.client_era) == (
        RETRY, "alice", "Bearer t", {"traceparent": "00-a-b-01"}, "2025-11-25")


def test_a_validated_caller_reaches_the_owner_with_its_subject_scopes_and_token() -> None:
    """Behind a resource-server front the owner's policy sees the validated scopes and a token exchange has its token;
    a front that checks no token sends none of these fields."""
    caller = fw.caller_fields("p", None, {}, "2026-07-28", "https://as.test/|alice", frozenset({"b", "a"}), "tok")
    assert caller["scopes"] == ["a", "b"] and "authorization" in caller and caller["authorization"] is None
    body = fw.forward_body(RETRY, caller, "b1", NOW)
    got = fw.read_forward(body, fw.sign(KEY, body), KEY, NOW, 1000)
    assert isinstance(got, fw.Forwarded)
    assert (got.subject, got.scopes, got.subject_token) == ("https://as.test/|alice", frozenset({"a", "b"}), "tok")
    assert "tok" not in repr(got)
    plain = fw.caller_fields("p", "Bearer t", {}, "2026-07-28", None, frozenset(), None)
    assert set(plain) == {"principal", "authorization", "trace", "client_era"}
    bad = orjson.dumps({"request": RETRY, "at_ms": NOW, "subject": "s", "scopes": "a b"})
    assert fw.read_forward(bad, fw.sign(KEY, bad), KEY, NOW, 1000) == BAD_REQUEST_STATUS


def test_a_body_without_a_caller_runs_as_an_anonymous_2026_client() -> None:
    body = orjson.dumps({"request": RETRY, "at_ms": NOW})
    got = fw.read_forward(body, fw.sign(KEY, body), KEY, NOW, 1000)
    assert isinstance(got, fw.Forwarded)
    assert (got.principal, got.trace, got.client_era) == (None, {}, "2026-07-28")


@pytest.mark.parametrize(("tamper", "status"), [
    ("signature", FORBIDDEN_STATUS), ("other key", FORBIDDEN_STATUS), ("stale", BAD_REQUEST_STATUS),
    ("future", BAD_REQUEST_STATUS), ("no time", BAD_REQUEST_STATUS), ("not json", BAD_REQUEST_STATUS),
    ("request not an object", BAD_REQUEST_STATUS), ("too large", CONTENT_TOO_LARGE_STATUS),
])
def test_the_owner_refuses_a_bad_forward(tamper: str, status: int) -> None:
    at = {"stale": NOW - fw.FORWARD_SKEW_MS - 1, "future": NOW + fw.FORWARD_SKEW_MS + 1}.get(tamper, NOW)
    body = fw.forward_body("x" if tamper == "request not an object" else RETRY, CALLER, "b1", at)  # type: ignore[arg-type]
    if tamper == "no time":
        body = orjson.dumps({"request": RETRY})
    elif tamper == "not json":
        body = b"{nope"
    elif tamper == "too large":
        body = b" " * (100 + fw.FORWARD_OVERHEAD_BYTES + 1)
    key = fw.forward_key(b"x" * 32) if tamper == "other key" else KEY
    signature = "0" * 64 if tamper == "signature" else fw.sign(key, body)
    assert fw.read_forward(body, signature, KEY, NOW, 100) == status


def test_the_stream_is_notes_then_one_done() -> None:
    note = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}
    done = {"jsonrpc": "2.0", "id": 7, "result": {"content": []}}
    lines = [fw.note_line(note), fw.done_line(done)]
    assert all(line.endswith(b"\n") for line in lines)
    assert [fw.is_done_line(line) for line in lines] == [False, True]
    assert [fw.read_line(line.decode().rstrip("\n")) for line in lines] == [("note", note), ("done", done)]
    assert fw.read_line("") is None
    with pytest.raises(KeyError):
        fw.read_line('{"other": 1}')
    with pytest.raises(orjson.JSONDecodeError):
        fw.read_line("{cut")


def test_a_discover_result_is_shared_for_its_ttl_in_its_scope() -> None:
    """2026-07-28 server/discover: ``ttlMs`` and ``cacheScope`` say how long and with whom a result may be reused."""
    scopes = fw.discover_scopes("alice")
    assert scopes == ("private:alice", "public")
    assert fw.discover_scopes(None) == ("private:-", "public")
    assert fw.discover_cache({"ttlMs": 60000, "cacheScope": "public"}, scopes) == ("public", 60000)
    assert fw.discover_cache({"ttlMs": 60000, "cacheScope": "private"}, scopes) == ("private:alice", 60000)
    assert fw.discover_cache({"ttlMs": 60000}, scopes) == ("private:alice", 60000)
    for ttl in (0, -1, True, "60000", None):
        assert fw.discover_cache({"ttlMs": ttl, "cacheScope": "public"}, scopes) is None


def test_heartbeats_back_off_doubling_up_to_two_seconds() -> None:
    # (a store that returns is seen within about two seconds: the instance re-registers and republishes)
    waits = [0.25]
    for _ in range(5):
        waits.append(fw.heartbeat_backoff(0.25, waits[-1], False))
    assert waits == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
    assert fw.heartbeat_backoff(0.25, 2.0, True) == 0.25


def test_address_book_keeps_the_newest_record_and_is_bounded() -> None:
    known: dict = {}
    fw.remember(known, {"a": {"url": "http://a:1"}, "b": {"url": "http://b"}, "x": {"no": "url"}})
    fw.remember(known, {"a": {"url": "http://a:2"}})  # a listing without b does not forget b
    assert known == {"b": {"url": "http://b"}, "a": {"url": "http://a:2"}}
    fw.remember(known, {f"n{i}": {"url": f"http://n{i}"} for i in range(3)}, cap=3)
    assert list(known) == ["n0", "n1", "n2"]  # the least recently heard of went first


def test_republish_when_the_record_was_missing_or_after_failed_beats() -> None:
    assert fw.must_republish(record_was_there=False, failed_before=False)  # restarted empty, or lapsed
    assert fw.must_republish(record_was_there=True, failed_before=True)  # writes were refused meanwhile
    assert not fw.must_republish(record_was_there=True, failed_before=False)


def test_the_counters_are_named_for_metrics_and_summed_over_task_routers() -> None:
    forwarded = {"out": 3, "in": 2, "lost": 1, "store_errors": 4, "store_reconnects": 1}
    out = fw.counters(forwarded, {"out": 5, "adopted": 1.0}, [{"taken_over": 2}, {"taken_over": 1, "routed": 4}])
    assert out == {"forwarded_out": 3, "forwarded_in": 2, "forward_failures": 1, "store_errors": 4, "store_reconnects": 1,
                   "sessions_out": 5, "sessions_adopted": 1, "tasks_taken_over": 3, "tasks_routed": 4}
    assert forwarded["lost"] == 1  # the instance's own counters are left alone

"""Session-level server requests (#17.1): a 2025 server asks ``roots/list`` right after
``notifications/initialized`` (2025-11-25 client/roots.mdx §Listing Roots), before any call is in
flight. The pure pool holds it for the session's next input-capable call, whose 2026 caller gets it as
an ``inputRequests`` entry; a client that did not declare the capability is answered as such a client
would (-32601); no call before the deadline is an error, never an empty list. Spec examples throughout."""

from __future__ import annotations

import copy
import json

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND
from mcp_eras.bridge.translate.legacy_server.pool import Grant, Limits, Pool, route_inbound
from mcp_eras.bridge.translate.mrtr_steps import AskClient, Finish, ToServer

import spec

ROOTS_CAPS = spec.example("ClientCapabilities", "roots-minimum-baseline-support.json")
ROOTS = spec.example("ListRootsResult", "single-root-directory.json")
LIMITS = Limits()


def request(caps: dict, method: str = "tools/call", rid: int = 1) -> dict:
    req = copy.deepcopy(spec.example("CallToolRequest"))
    req["id"], req["method"] = rid, method
    req["params"]["_meta"][eras.META_CLIENT_CAPABILITIES] = caps
    req["params"]["_meta"][eras.META_CLIENT_INFO] = {"name": "ExampleClient", "version": "1"}
    return req


def roots_list(server_id: int = 0) -> dict:
    """The spec's ListRootsRequest as a 2025 server sends it (a JSON-RPC request with its own id)."""
    ask = {"jsonrpc": "2.0", **spec.example("ListRootsRequest"), "id": server_id}
    spec.legacy("ListRootsRequest", ask)
    return ask


def session(caps: dict) -> tuple[Pool, str, dict]:
    pool = Pool()
    first = request(caps)
    choice = pool.acquire(first, "alice", "s1", limits=LIMITS, now_ms=0)
    assert isinstance(choice, Grant) and choice.new
    return pool, choice.sid, first


def test_roots_list_before_any_call_asks_the_caller_of_the_next_call_then_answers_upstream() -> None:
    """Issue #30: the call that opens the session settles what the server asked at once before it goes upstream -- its
    caller gets the roots request first, the server gets the answer, then the call is sent."""
    pool, sid, first = session(ROOTS_CAPS)
    # Right after initialized: the lease is granted (0) but the call is not sent yet; nothing carries it.
    assert route_inbound(roots_list(), None, {1: None}, lease=pool.sessions[sid].lease) == ("hold", None)
    assert pool.hold(sid, roots_list(), now_ms=10, wait_ms=60_000, limits=LIMITS) is None
    call, actions = pool.begin_call(sid, first, 7, exclusive=True, server_info=None, ttl_ms=0, cache_scope="private", now_ms=20)
    assert actions == [AskClient({"s0": {"method": "roots/list"}})]  # nothing goes upstream before the roots
    assert not pool.sessions[sid].held
    spec.modern("InputRequests", actions[0].inputs)
    retry = request(ROOTS_CAPS, rid=2)
    retry["params"]["inputResponses"] = {"s0": ROOTS}
    spec.modern("InputResponses", retry["params"]["inputResponses"])
    sent = pool.resume_call(sid, call, retry, 200)
    assert sent[0] == ToServer(jsonrpc.result_response(0, ROOTS))
    spec.legacy("ListRootsResult", sent[0].frame["result"])
    assert isinstance(sent[1], ToServer) and sent[1].frame["method"] == "tools/call" and sent[1].frame["id"] == 7
    done = call.on_upstream(jsonrpc.result_response(7, {"content": []}), 300)
    assert isinstance(done[0], Finish) and done[0].response["id"] == 2


def test_a_call_that_cannot_carry_input_leaves_it_for_the_next_one_that_can() -> None:
    pool, sid, _first = session(ROOTS_CAPS)
    listing = request(ROOTS_CAPS, method="tools/list")
    assert pool.acquire(listing, "alice", "s2", limits=LIMITS) == Grant(sid)  # same session, no lease
    _call, _ = pool.begin_call(sid, listing, 1, exclusive=False, server_info=None, ttl_ms=0, cache_scope="private")
    assert route_inbound(roots_list(), None, {1: False}, lease=None, askable=[]) == ("hold", None)
    pool.hold(sid, roots_list(), now_ms=0, wait_ms=1_000, limits=LIMITS)
    assert len(pool.sessions[sid].held) == 1
    pool.close_call(sid, 1)
    _call2, actions = pool.begin_call(sid, request(ROOTS_CAPS), 2, exclusive=True, server_info=None, ttl_ms=0,
                                      cache_scope="private", now_ms=5)
    assert actions == [AskClient({"s0": {"method": "roots/list"}})] and not pool.sessions[sid].held


def test_a_client_that_did_not_declare_roots_is_answered_method_not_found() -> None:
    pool, sid, _first = session({"sampling": {}})
    answer = pool.hold(sid, roots_list(3), now_ms=0, wait_ms=1_000, limits=LIMITS)
    assert answer is not None and answer["error"]["code"] == METHOD_NOT_FOUND  # 2025-11-25 client/roots.mdx §Error Handling
    spec.legacy("JSONRPCErrorResponse", answer)
    assert not pool.sessions[sid].held


def test_no_call_before_the_deadline_is_an_error_never_an_empty_list() -> None:
    pool, sid, _first = session(ROOTS_CAPS)
    pool.hold(sid, roots_list(1), now_ms=0, wait_ms=1_000, limits=LIMITS)
    pool.hold(sid, roots_list(2), now_ms=500, wait_ms=1_000, limits=LIMITS)
    assert pool.expire_held(sid, 999) == ([], 1_000)
    frames, next_at = pool.expire_held(sid, 1_000)
    assert [f["id"] for f in frames] == [1] and next_at == 1_500
    assert frames[0]["error"]["code"] == INTERNAL_ERROR and "result" not in frames[0]
    spec.legacy("JSONRPCErrorResponse", frames[0])
    pool.withdraw_held(sid, 2)  # the server cancelled its request: nothing to answer
    assert pool.expire_held(sid, 5_000) == ([], None)


def test_held_requests_are_capped_per_session_and_dropped_with_a_lost_session() -> None:
    pool, sid, _first = session(ROOTS_CAPS)
    limits = Limits(held_per_session=2)
    assert [pool.hold(sid, roots_list(i), now_ms=0, wait_ms=9, limits=limits) for i in range(2)] == [None, None]
    over = pool.hold(sid, roots_list(9), now_ms=0, wait_ms=9, limits=limits)
    assert over is not None and over["error"]["code"] == INTERNAL_ERROR and pool.refused["held_per_session"] == 1
    assert Pool.from_json(json.loads(json.dumps(pool.to_json()))) == pool
    pool.lost(sid)
    assert not pool.sessions[sid].held

"""Issue #30: what a new 2025 session's server asks at once is settled before the first call goes upstream (pure)."""

from __future__ import annotations

import copy

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.legacy_server import session as rules
from mcp_eras.bridge.translate.legacy_server.call import LegacyCall
from mcp_eras.bridge.translate.legacy_server.pool import Grant, Limits, Pool
from mcp_eras.bridge.translate.mrtr_steps import AskClient, Finish, ToServer, Wake

import spec

ROOTS_CAPS = {"roots": {}}
ROOTS = {"roots": [{"uri": "file:///home/user/project", "name": "project"}]}
LIMITS = Limits()


def request(caps: dict, rid: int = 1) -> dict:
    req = copy.deepcopy(spec.example("CallToolRequest"))
    req["id"] = rid
    req["params"]["_meta"][eras.META_CLIENT_CAPABILITIES] = caps
    req["params"]["_meta"][eras.META_CLIENT_INFO] = {"name": "c", "version": "1"}
    return req


def roots_list(server_id: int = 0) -> dict:
    return jsonrpc.request(server_id, "roots/list", None)


def session_with_held(caps: dict) -> tuple[Pool, Grant]:
    pool = Pool()
    grant = pool.acquire(request(caps), "alice", "s1", limits=LIMITS, now_ms=0)
    assert isinstance(grant, Grant)
    assert pool.hold("s1", roots_list(), now_ms=0, wait_ms=60_000, limits=LIMITS) is None
    return pool, grant


def begin(pool: Pool, req: dict, settle_ms: int = 0) -> tuple[LegacyCall, list]:
    return pool.begin_call("s1", req, 7, exclusive=True, server_info=None, ttl_ms=0, cache_scope="private", now_ms=10,
                           settle_ms=settle_ms)


def test_the_first_call_asks_the_held_request_before_it_goes_upstream() -> None:
    pool, _grant = session_with_held(ROOTS_CAPS)
    call, actions = begin(pool, request(ROOTS_CAPS))
    assert [type(a) for a in actions] == [AskClient]  # nothing to the server yet
    (ask,) = actions
    assert list(ask.inputs.values()) == [{"method": "roots/list"}]
    assert not pool.sessions["s1"].held and call.deferred is not None
    # Parked for the session's start, the call keeps its session's lease: nobody runs on an unsettled session.
    pool.park("s1", call, request(ROOTS_CAPS), "p1", "alice", expires_ms=1000, limits=LIMITS)
    assert pool.sessions["s1"].lease == 7
    rec, locked = pool.reclaim("p1", call.rounds.round)
    assert rec is not None and locked
    key = next(iter(ask.inputs))
    retry = {**request(ROOTS_CAPS, 2), "params": {**request(ROOTS_CAPS)["params"], "inputResponses": {key: ROOTS}}}
    steps = pool.resume_call("s1", call, retry, now_ms=20)
    # The answer first, then the call itself (its own upstream id).
    assert [type(s) for s in steps] == [ToServer, ToServer]
    assert steps[0].frame == {"jsonrpc": "2.0", "id": 0, "result": ROOTS}
    assert steps[1].frame["method"] == "tools/call" and steps[1].frame["id"] == 7
    (done,) = call.on_upstream(jsonrpc.result_response(7, {"content": []}), 30)
    assert isinstance(done, Finish) and done.response["id"] == 2


def test_the_call_follows_the_answers_after_the_settle_time() -> None:
    pool, _grant = session_with_held(ROOTS_CAPS)
    call, (ask,) = begin(pool, request(ROOTS_CAPS), settle_ms=250)
    key = next(iter(ask.inputs))
    retry = {**request(ROOTS_CAPS, 2), "params": {**request(ROOTS_CAPS)["params"], "inputResponses": {key: ROOTS}}}
    steps = call.resume(retry, 1000)
    assert [type(s) for s in steps] == [ToServer, Wake] and steps[1].at_ms == 1250
    assert call.on_timer(1100) == [Wake(1250)]
    (sent,) = call.on_timer(1250)
    assert isinstance(sent, ToServer) and sent.frame["method"] == "tools/call"
    assert call.deferred is None and call.on_timer(1300) == []
    assert LegacyCall.from_json(call.to_json()) == call


def test_a_call_given_up_before_it_went_upstream_declines_without_a_cancel_notice() -> None:
    pool, _grant = session_with_held(ROOTS_CAPS)
    call, _actions = begin(pool, request(ROOTS_CAPS))
    steps = call.cancel("input not provided in time")
    assert [s.frame.get("method") for s in steps] == [None]  # the refusal of roots/list, no notifications/cancelled
    assert steps[0].frame["id"] == 0 and "error" in steps[0].frame


def test_without_held_requests_the_call_goes_upstream_at_once() -> None:
    pool = Pool()
    pool.acquire(request(ROOTS_CAPS), "alice", "s1", limits=LIMITS, now_ms=0)
    _call, actions = begin(pool, request(ROOTS_CAPS))
    assert [type(a) for a in actions] == [ToServer] and actions[0].frame["method"] == "tools/call"


def test_a_client_that_declared_nothing_gets_the_method_not_found_path_and_no_settling() -> None:
    pool = Pool()
    pool.acquire(request({}), "alice", "s1", limits=LIMITS, now_ms=0)
    answer = pool.hold("s1", roots_list(), now_ms=0, wait_ms=60_000, limits=LIMITS)
    assert answer is not None and answer["error"]["code"] == jsonrpc.METHOD_NOT_FOUND
    assert not rules.settles_start({}) and not rules.settles_start(None)
    assert rules.settles_start(ROOTS_CAPS) and rules.settles_start({"elicitation": {}})

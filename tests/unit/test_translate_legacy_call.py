"""The direction-A call machine, fed the spec's 2026 request examples and 2025 server traffic: frames
for the legacy server are valid 2025-11-25, frames for the client valid 2026-07-28."""

from __future__ import annotations

import copy
import json

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.legacy_server.call import LegacyCall
from mcp_eras.bridge.translate.legacy_server.mrtr import COALESCE_MS
from mcp_eras.bridge.translate.mrtr_steps import AskClient, Finish, ToClient, ToServer, Wake

import spec

SERVER_INFO = {"name": "LegacyServer", "version": "1.0.0"}


def call_request(caps: dict | None = None, token: object = None, level: str | None = None) -> dict:
    request = copy.deepcopy(spec.example("CallToolRequest"))
    meta = request["params"]["_meta"]
    if caps is not None:
        meta[eras.META_CLIENT_CAPABILITIES] = caps
    if token is not None:
        meta["progressToken"] = token
    if level is not None:
        meta[eras.META_LOG_LEVEL] = level
    return request


def begin(request: dict) -> tuple[LegacyCall, list]:
    call, actions = LegacyCall.begin(request, 5, server_info=SERVER_INFO, ttl_ms=0, cache_scope="private")
    assert len(actions) == 1 and isinstance(actions[0], ToServer)
    spec.legacy("CallToolRequest", actions[0].frame)
    return call, actions


def text_result(rid: int, text: str = "ok") -> dict:
    return jsonrpc.result_response(rid, {"content": [{"type": "text", "text": text}], "isError": False})


def test_plain_call_one_event_in_one_reply_out() -> None:
    request = call_request()
    call, _ = begin(request)
    [reply] = call.on_upstream(text_result(5), 0)
    assert isinstance(reply, Finish) and reply.response["id"] == request["id"]
    spec.modern("CallToolResultResponse", reply.response)
    assert reply.response["result"]["_meta"][eras.META_SERVER_INFO] == SERVER_INFO
    assert call.phase == "done" and call.on_upstream(text_result(5), 0) == []


def test_progress_is_monotonic_and_logs_need_an_opt_in() -> None:
    call, actions = begin(call_request(token="client-tok", level="info"))
    assert actions[0].frame["params"]["_meta"]["progressToken"] == 5  # the bridge's own token upstream
    emitted = []
    for progress in (1, 2, 2, 1.5, 3):
        emitted += call.on_upstream(jsonrpc.notification("notifications/progress", {"progressToken": 5, "progress": progress}), 0)
    assert [a.frame["params"]["progress"] for a in emitted] == [1, 2, 3]
    for action in emitted:
        assert isinstance(action, ToClient) and action.frame["params"]["progressToken"] == "client-tok"
        spec.modern("ProgressNotification", action.frame)
    [log] = call.on_upstream(jsonrpc.notification("notifications/message", {"level": "warning", "data": "x"}), 0)
    spec.modern("LoggingMessageNotification", log.frame)
    assert call.on_upstream(jsonrpc.notification("notifications/message", {"level": "debug", "data": "x"}), 0) == []
    quiet, _ = begin(call_request())
    assert quiet.on_upstream(jsonrpc.notification("notifications/message", {"level": "error", "data": "x"}), 0) == []


def test_input_round_parks_then_the_retry_finishes() -> None:
    caps = {"elicitation": {}}
    call, _ = begin(call_request(caps, token="t1"))
    ask = jsonrpc.request(70, "elicitation/create", spec.example("ElicitRequest")["params"])
    spec.legacy("ElicitRequest", ask)
    assert call.on_upstream(ask, 1_000) == [Wake(1_000 + COALESCE_MS)]
    assert call.on_timer(1_010) == [Wake(1_000 + COALESCE_MS)]
    [park] = call.on_timer(1_000 + COALESCE_MS)
    assert isinstance(park, AskClient) and call.phase == "parked"
    spec.modern("InputRequests", park.inputs)
    # Progress while parked is held for the retry's stream.
    assert call.on_upstream(jsonrpc.notification("notifications/progress", {"progressToken": 5, "progress": 1}), 0) == []
    retry = call_request(caps, token="t2")
    retry["id"] = "retry-1"
    retry["params"]["inputResponses"] = {"s70": {"action": "accept", "content": {"name": "octocat"}}}
    sent, held = call.resume(retry)
    assert isinstance(sent, ToServer) and sent.frame["id"] == 70
    spec.legacy("ElicitResult", sent.frame["result"])
    assert isinstance(held, ToClient) and held.frame["params"]["progressToken"] == "t2"
    [reply] = call.on_upstream(text_result(5), 0)
    assert reply.response["id"] == "retry-1" and "ttlMs" not in reply.response["result"]
    spec.modern("CallToolResultResponse", reply.response)


def test_missing_capability_fails_the_call_and_answers_the_server() -> None:
    call, _ = begin(call_request({}))
    call.on_upstream(jsonrpc.request(71, "sampling/createMessage", spec.example("CreateMessageRequest")["params"]), 0)
    actions = call.on_timer(COALESCE_MS)
    sends = [a.frame for a in actions if isinstance(a, ToServer)]
    assert sends[0]["id"] == 71 and sends[-1]["method"] == "notifications/cancelled"
    for frame in sends:
        spec.legacy("JSONRPCMessage", frame)
    assert isinstance(actions[-1], Finish)
    spec.modern("MissingRequiredClientCapabilityError", actions[-1].response)


def test_response_during_a_round_is_kept_for_the_retry() -> None:
    call, _ = begin(call_request({"roots": {}}))
    call.on_upstream(jsonrpc.request(72, "roots/list"), 0)
    [park] = call.on_upstream(text_result(5, "early"), 1)  # the response closes the round at once
    assert isinstance(park, AskClient)
    retry = call_request({"roots": {}})
    retry["params"]["inputResponses"] = {"s72": spec.example("ListRootsResult")}
    sent, reply = call.resume(retry)
    assert sent.frame["id"] == 72 and reply.response["result"]["content"][0]["text"] == "early"


def test_malformed_input_responses_cancel_and_answer_32602() -> None:
    call, _ = begin(call_request({"roots": {}}))
    call.on_upstream(jsonrpc.request(73, "roots/list"), 0)
    call.on_timer(COALESCE_MS)
    retry = call_request({"roots": {}})
    retry["params"]["inputResponses"] = ["not", "a", "map"]
    actions = call.resume(retry)
    assert actions[-1].response["error"]["code"] == -32602
    assert [a.frame.get("method") for a in actions if isinstance(a, ToServer)] == [None, "notifications/cancelled"]


def test_cancel_declines_pending_and_tells_the_server() -> None:
    call, _ = begin(call_request({"roots": {}}))
    call.on_upstream(jsonrpc.request(74, "roots/list"), 0)
    frames = [a.frame for a in call.cancel("client went away")]
    assert frames[0]["id"] == 74 and "error" in frames[0]
    spec.legacy("CancelledNotification", frames[1])
    assert call.cancel("again") == []


def test_state_round_trips_through_json() -> None:
    call, _ = begin(call_request({"roots": {}}, token=3))
    call.on_upstream(jsonrpc.request(75, "roots/list"), 0)
    call.on_timer(COALESCE_MS)
    again = LegacyCall.from_json(json.loads(json.dumps(call.to_json())))
    assert again == call

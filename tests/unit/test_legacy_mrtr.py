"""mcp_eras.bridge.translate.legacy_client.mrtr: the direction-B MRTR round driver, with the spec's example messages.

Every request the driver sends to the 2025 client is validated against the 2025-11-25 schema, every retry
toward the upstream against the 2026-07-28 schema.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.legacy_client import mrtr
from mcp_eras.bridge.translate.mrtr_steps import AskClient, Finish, GiveUp, Resume, final, notes

import spec

example = spec.example
legacy = spec.legacy
modern = spec.modern
FULL_CAPS = {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {"form": {}, "url": {}}}
STATE_EXAMPLE = "input-required-result-with-elicitation-and-sampling-and-request-state.json"


def _eids() -> Any:
    counter = itertools.count(1)
    return lambda: f"eid-{next(counter)}"


def _ids() -> Any:
    counter = itertools.count(1)
    return lambda: f"bridge-{next(counter)}"


def test_input_round_from_spec_example() -> None:
    result = example("InputRequiredResult", "input-required-result-with-elicitation-and-sampling-and-request-state.json")
    modern("InputRequiredResult", result)
    pending = mrtr.input_round(result, FULL_CAPS, _ids(), _eids())
    assert [p.key for p in pending] == ["github_login", "capital_of_france"]
    assert [p.request["id"] for p in pending] == ["bridge-1", "bridge-2"]
    for p in pending:
        assert p.request["params"] == result["inputRequests"][p.key]["params"]
        legacy("ServerRequest", p.request)
        legacy("JSONRPCRequest", p.request)
    legacy("ElicitRequest", pending[0].request)
    legacy("CreateMessageRequest", pending[1].request)


def test_input_round_url_mode_gets_elicitation_id() -> None:
    result = {"resultType": "input_required",
              "inputRequests": {"k": {"method": "elicitation/create", "params": example("ElicitRequestURLParams")},
                                "r": {"method": "roots/list"}}}
    pending = mrtr.input_round(result, FULL_CAPS, _ids(), lambda: "eid-1")
    url, roots = pending
    assert url.elicitation_id == "eid-1" and url.request["params"]["elicitationId"] == "eid-1"
    legacy("ElicitRequest", url.request)
    assert roots.request == {"jsonrpc": "2.0", "id": "bridge-2", "method": "roots/list"}
    legacy("ListRootsRequest", roots.request)
    assert "elicitationId" not in result["inputRequests"]["k"]["params"]  # upstream data untouched


def test_input_round_refuses_undeclared_and_malformed() -> None:
    result = example("InputRequiredResult", "input-required-result-with-elicitation-and-sampling-and-request-state.json")
    with pytest.raises(GiveUp) as err:
        mrtr.input_round(result, {"elicitation": {}}, _ids(), _eids())
    assert "capital_of_france" in err.value.message
    assert err.value.to_response(4)["error"]["code"] == -32603
    with pytest.raises(GiveUp):
        mrtr.input_round({"resultType": "input_required", "inputRequests": {"x": {"method": "ping"}}}, FULL_CAPS, _ids(), _eids())
    with pytest.raises(GiveUp):
        mrtr.input_round({"resultType": "input_required"}, FULL_CAPS, _ids(), _eids())
    state_only = example("InputRequiredResult", "input-required-result-with-request-state-only.json")
    assert mrtr.input_round(state_only, {}, _ids(), _eids()) == []


def test_input_responses_from_legacy_answers() -> None:
    result = example("InputRequiredResult", "input-required-result-with-elicitation-and-sampling-and-request-state.json")
    elicit, sample = mrtr.input_round(result, FULL_CAPS, _ids(), _eids())
    expected = example("InputResponses")
    e_answer = jsonrpc.result_response(elicit.request["id"], {**expected["github_login"], "_meta": {"x": 1}})
    s_answer = jsonrpc.result_response(sample.request["id"], {**expected["capital_of_france"], "_meta": {"keep": True}})
    legacy("ElicitResult", e_answer["result"])
    legacy("CreateMessageResult", s_answer["result"])
    responses = {elicit.key: mrtr.input_response(elicit, e_answer), sample.key: mrtr.input_response(sample, s_answer)}
    assert responses["github_login"] == expected["github_login"]  # _meta dropped from ElicitResult
    assert responses["capital_of_france"] == {**expected["capital_of_france"], "_meta": {"keep": True}}
    modern("InputResponses", responses)
    # elicitation error -> cancel; sampling error -> abort naming the input
    err = jsonrpc.error_response(elicit.request["id"], -1, "User rejected")
    assert mrtr.input_response(elicit, err) == {"action": "cancel"}
    with pytest.raises(GiveUp) as abort:
        mrtr.input_response(sample, jsonrpc.error_response(sample.request["id"], -1, "User rejected sampling"))
    assert "capital_of_france" in abort.value.message and abort.value.data["error"]["code"] == -1
    roots = mrtr.PendingInput("r", "roots/list", jsonrpc.request("bridge-9", "roots/list"))
    answer = jsonrpc.result_response("bridge-9", {**example("ListRootsResult", "single-root-directory.json"), "_meta": {"a": 1}})
    value = mrtr.input_response(roots, answer)
    assert "_meta" not in value
    modern("ListRootsResult", value)
    with pytest.raises(GiveUp):
        mrtr.input_response(roots, jsonrpc.error_response("bridge-9", -32601, "no roots"))


def test_retry_request_echoes_state_byte_for_byte() -> None:
    canonical = example("CallToolRequest")
    state = "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0 \u00e9+/="
    retry = mrtr.retry_request(canonical, "retry-2", example("InputResponses"), state)
    assert retry["id"] == "retry-2"
    assert retry["params"]["requestState"] is state
    assert retry["params"]["name"] == canonical["params"]["name"]
    assert retry["params"]["_meta"] == canonical["params"]["_meta"]
    modern("CallToolRequest", retry)
    again = mrtr.retry_request(retry, "retry-3", {}, None)
    assert "requestState" not in again["params"] and "inputResponses" not in again["params"]
    assert "inputResponses" not in canonical["params"]


def test_url_elicitation_completion_tracking() -> None:
    url_req = {"method": "elicitation/create", "params": example("ElicitRequestURLParams")}
    result = {"resultType": "input_required", "inputRequests": {"login": url_req, "form": example("ElicitRequest")}}
    round_inputs = mrtr.input_round(result, FULL_CAPS, _ids(), lambda: "eid-7")
    accepted = mrtr.accepted_url_elicitations(round_inputs, {"login": {"action": "accept"}, "form": {"action": "accept"}})
    assert accepted == {"login": "eid-7"}
    assert mrtr.accepted_url_elicitations(round_inputs, {"login": {"action": "decline"}}) == {}
    still_asking = {"result": {"resultType": "input_required", "inputRequests": {"login": url_req}}}
    assert mrtr.finished_url_elicitations(accepted, still_asking) == []
    moved_on = {"result": {"resultType": "input_required", "inputRequests": {"other": example("ElicitRequest")}}}
    assert mrtr.finished_url_elicitations(accepted, moved_on) == [("login", "eid-7")]
    assert mrtr.finished_url_elicitations(accepted, {"result": {"resultType": "complete"}}) == [("login", "eid-7")]
    assert mrtr.finished_url_elicitations(accepted, {"error": {"code": -32603, "message": "x"}}) == [("login", "eid-7")]


def test_elicitation_complete_and_cancel_frames() -> None:
    legacy("ElicitationCompleteNotification", mrtr.elicitation_complete("eid-1"))
    legacy("CancelledNotification", mrtr.cancel_notification("bridge-1", "gone"))




# --- the round driver ------------------------------------------------------------------------------


def _legacy_call() -> dict[str, Any]:
    call = dict(example("CallToolRequest"))
    call["params"] = {k: v for k, v in call["params"].items() if k != "_meta"}
    legacy("CallToolRequest", call)
    return call


def _canonical(call: dict[str, Any]) -> dict[str, Any]:
    canonical = {**call, "params": {**call["params"], "_meta": example("CallToolRequest")["params"]["_meta"]}}
    modern("CallToolRequest", canonical)
    return canonical


def _upstream(result: dict[str, Any], rid: Any = 1) -> dict[str, Any]:
    return jsonrpc.result_response(rid, result)


def test_driver_walks_a_spec_round_to_completion() -> None:
    call = _legacy_call()
    canonical = _canonical(call)
    state = mrtr.start(call, canonical, max_rounds=4)
    first = example("InputRequiredResult", STATE_EXAMPLE)
    steps = mrtr.on_upstream(state, _upstream(first), FULL_CAPS, _ids(), _eids())
    step = final(steps)
    assert isinstance(step, AskClient) and notes(steps) == [] and len(steps) == 1
    for q in step.inputs.values():
        legacy("JSONRPCRequest", q)
        legacy("ServerRequest", q)
    # The state is plain data at every step.
    state = mrtr.RoundsState.from_json(json.loads(json.dumps(state.to_json())))
    expected = example("InputResponses")
    answers = {key: jsonrpc.result_response(q["id"], expected[key]) for key, q in step.inputs.items()}
    [retry] = mrtr.on_answers(state, answers)
    assert isinstance(retry, Resume) and retry.delay == 0.0
    modern("CallToolRequest", retry.request)
    assert retry.request["id"] == call["id"]
    assert retry.request["params"]["requestState"] == first["requestState"]
    assert retry.request["params"]["inputResponses"] == expected
    assert retry.request["params"]["_meta"] == canonical["params"]["_meta"]
    [done] = mrtr.on_upstream(state, _upstream(example("CallToolResult")), FULL_CAPS, _ids(), _eids())
    assert isinstance(done, Finish)
    legacy("JSONRPCResultResponse", done.response)
    legacy("CallToolResult", done.response["result"])
    assert done.response["id"] == call["id"] and state.rounds == 1


def test_driver_caps_the_rounds() -> None:
    call = _legacy_call()
    state = mrtr.start(call, _canonical(call), max_rounds=2)
    again = example("InputRequiredResult", "input-required-result-with-request-state-only.json")
    delays = []
    for _ in range(2):
        [step] = mrtr.on_upstream(state, _upstream(again), FULL_CAPS, _ids(), _eids())
        assert isinstance(step, Resume)
        assert step.request["params"]["requestState"] == again["requestState"]
        assert "inputResponses" not in step.request["params"]
        delays.append(step.delay)
    assert 0 < delays[0] < delays[1] <= 1.0
    [last] = mrtr.on_upstream(state, _upstream(again), FULL_CAPS, _ids(), _eids())
    assert isinstance(last, Finish)
    assert last.response["error"]["code"] == -32603 and last.response["error"]["data"] == {"maxRounds": 2}
    legacy("JSONRPCErrorResponse", last.response)


def test_driver_refuses_input_on_methods_that_cannot_carry_it() -> None:
    msg = jsonrpc.request(3, "tools/list")
    state = mrtr.start(msg, {**msg, "params": {"_meta": {}}}, max_rounds=4)
    [step] = mrtr.on_upstream(state, _upstream(example("InputRequiredResult", STATE_EXAMPLE)), FULL_CAPS, _ids(), _eids())
    assert isinstance(step, Finish) and step.response["error"]["code"] == -32603


def test_driver_aborts_on_undeclared_capability_and_failed_sampling() -> None:
    call = _legacy_call()
    state = mrtr.start(call, _canonical(call), max_rounds=4)
    result = example("InputRequiredResult", STATE_EXAMPLE)
    [step] = mrtr.on_upstream(state, _upstream(result), {"elicitation": {}}, _ids(), _eids())
    assert isinstance(step, Finish) and step.response["error"]["code"] == -32603
    legacy("JSONRPCErrorResponse", step.response)
    state = mrtr.start(call, _canonical(call), max_rounds=4)
    [ask] = mrtr.on_upstream(state, _upstream(result), FULL_CAPS, _ids(), _eids())
    assert isinstance(ask, AskClient)
    answers = {key: jsonrpc.error_response(q["id"], -1, "User rejected") for key, q in ask.inputs.items()}
    [end] = mrtr.on_answers(state, answers)
    assert isinstance(end, Finish) and end.response["error"]["code"] == -32603
    # A client that never answered stands in as an error too.
    assert mrtr.unanswered("bridge-1")["error"]["code"] == -32603


def test_driver_completes_accepted_url_elicitations() -> None:
    call = _legacy_call()
    state = mrtr.start(call, _canonical(call), max_rounds=4)
    url = {"method": "elicitation/create", "params": example("ElicitRequestURLParams")}
    [ask] = mrtr.on_upstream(state, _upstream({"resultType": "input_required", "inputRequests": {"login": url}}),
                             FULL_CAPS, _ids(), lambda: "eid-42")
    assert isinstance(ask, AskClient)
    legacy("ElicitRequest", ask.inputs["login"])
    mrtr.on_answers(state, {"login": jsonrpc.result_response(ask.inputs["login"]["id"], {"action": "accept"})})
    steps = mrtr.on_upstream(state, _upstream(example("CallToolResult")), FULL_CAPS, _ids(), _eids())
    assert isinstance(final(steps), Finish)
    assert notes(steps) == [mrtr.elicitation_complete("eid-42")]
    legacy("ElicitationCompleteNotification", notes(steps)[0])


def test_driver_maps_final_errors_for_the_2025_client() -> None:
    msg = jsonrpc.request(9, "resources/read", {"uri": "file:///nonexistent.txt"})
    state = mrtr.start(msg, {**msg, "params": {**msg["params"], "_meta": {}}}, max_rounds=4)
    err = {"jsonrpc": "2.0", "id": 9, "error": {"code": -32602, "message": "Resource not found",
                                                "data": {"uri": "file:///nonexistent.txt"}}}
    [done] = mrtr.on_upstream(state, err, FULL_CAPS, _ids(), _eids())
    assert isinstance(done, Finish) and done.response["error"]["code"] == -32002
    legacy("JSONRPCErrorResponse", done.response)

"""The MRTR round machine (direction A) with the spec's own input requests and responses; every frame
it sends upstream is a valid 2025-11-25 message, every inputRequests map a valid 2026-07-28 one."""

from __future__ import annotations

import json

import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.legacy_server import frames as tx
from mcp_eras.bridge.translate.legacy_server import mrtr as mr
from mcp_eras.bridge.translate.legacy_server.mrtr import COALESCE_MS, Rounds

import spec

SERVER_INFO = {"name": "LegacyServer", "version": "1.0.0"}


def server_requests() -> list[dict]:
    """The spec's InputRequests example as the 2025 server->client requests a legacy server would send."""
    return [jsonrpc.request(7 + i, entry["method"], entry.get("params")) for i, entry in enumerate(spec.example("InputRequests").values())]


def test_spec_requests_are_valid_both_ways() -> None:
    for req in server_requests():
        spec.legacy("JSONRPCRequest", req)
        spec.legacy({"elicitation/create": "ElicitRequest", "sampling/createMessage": "CreateMessageRequest"}[req["method"]], req)


def test_a_round_coalesces_then_parks_with_valid_input_requests() -> None:
    rounds = Rounds()
    first, second = server_requests()
    assert rounds.on_input(first, 1_000) == 1_000 + COALESCE_MS
    assert rounds.close({}, 1, now_ms=1_020).wake_at == 1_050  # too early: the shell waits on
    assert rounds.on_input(second, 1_030) == 1_030 + COALESCE_MS  # each arrival extends the window
    decision = rounds.close({"elicitation": {}, "sampling": {}}, 1, now_ms=1_080)
    assert decision.error is None and rounds.round == 1
    spec.modern("InputRequests", decision.input_requests)
    spec.modern("InputRequiredResult", tx.input_required_result(decision.input_requests, "state", SERVER_INFO))
    assert set(decision.input_requests) == {"s7", "s8"}


def test_answers_go_upstream_and_missing_keys_are_asked_again() -> None:
    rounds = Rounds()
    elicit, sample = server_requests()
    rounds.on_input(elicit, 0)
    rounds.on_input(sample, 0)
    asked = rounds.close({"elicitation": {}, "sampling": {}}, 1).input_requests
    responses = spec.example("InputResponses")
    only_elicit = {"s7": responses["github_login"], "unknown-key": {"ignored": True}}
    frames, again = rounds.answer(only_elicit)
    assert [f["id"] for f in frames] == [7] and again == {"s8": asked["s8"]}
    for frame in frames:
        spec.legacy("JSONRPCResultResponse", frame)
        spec.legacy("ElicitResult", frame["result"])
    frames, again = rounds.answer({"s8": {**responses["capital_of_france"], "resultType": "complete"}})
    assert again is None and frames[0]["id"] == 8 and "resultType" not in frames[0]["result"]
    spec.legacy("CreateMessageResult", frames[0]["result"])
    assert rounds.round == 2


def test_undeclared_capability_is_32021_and_the_server_is_answered() -> None:
    rounds = Rounds()
    elicit, _ = server_requests()
    rounds.on_input(elicit, 0)
    decision = rounds.close({}, 1)
    assert decision.input_requests is None
    spec.modern("MissingRequiredClientCapabilityError", decision.error)
    assert decision.error == spec.example("MissingRequiredClientCapabilityError")
    assert [f["id"] for f in decision.refusals] == [7]
    spec.legacy("ElicitResult", decision.refusals[0]["result"])


@pytest.mark.parametrize(("method", "params", "declared", "ok"), [
    ("roots/list", {}, {"roots": {}}, True),
    ("roots/list", {}, {"sampling": {}}, False),
    ("sampling/createMessage", {"includeContext": "thisServer"}, {"sampling": {}}, True),  # issue: only `sampling`
    ("sampling/createMessage", {"tools": []}, {"sampling": {}}, False),
    ("sampling/createMessage", {"tools": []}, {"sampling": {"tools": {}}}, True),
    ("elicitation/create", {"mode": "form"}, {"elicitation": {}}, True),  # {} means form
    ("elicitation/create", {"mode": "url"}, {"elicitation": {}}, False),
    ("elicitation/create", {"mode": "url"}, {"elicitation": {"url": {}}}, True),
])
def test_capability_rules(method: str, params: dict, declared: dict, ok: bool) -> None:
    need = mr.required_capability(method, params)
    assert need is not None and mr.has_capability(declared, need) is ok


@pytest.mark.parametrize(("method", "params", "entry_def"), [
    ("elicitation/create", {"message": "Name?", "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}},
                            "_meta": {"progressToken": 1}}, "ElicitRequest"),
    ("elicitation/create", {"mode": "url", "message": "Log in", "url": "https://example.com/x", "elicitationId": "e1"}, "ElicitRequest"),
    ("sampling/createMessage", {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5,
                                "task": {"ttl": 1000}}, "CreateMessageRequest"),
    ("roots/list", {}, "ListRootsRequest"),
])
def test_server_requests_become_input_requests(method: str, params: dict, entry_def: str) -> None:
    entry, elicitation_id = mr.input_request(method, params)
    spec.modern(entry_def, entry)
    assert "_meta" not in entry.get("params", {}) and "task" not in entry.get("params", {})
    assert elicitation_id == params.get("elicitationId")


def test_refusals_are_valid_2025_answers_and_withdrawn_requests_are_forgotten() -> None:
    spec.legacy("ElicitResult", mr.refusal_frame(1, "elicitation/create")["result"])
    for method in ("sampling/createMessage", "roots/list", "bogus/method"):
        spec.legacy("JSONRPCErrorResponse", mr.refusal_frame(1, method))
    rounds = Rounds()
    elicit, sample = server_requests()
    rounds.on_input(elicit, 0)
    rounds.withdraw(7)
    rounds.on_input(sample, 0)
    assert set(rounds.close({"sampling": {}}, 1).input_requests) == {"s8"}
    assert [f["id"] for f in rounds.refuse_all()] == [8]


def test_a_round_is_bounded() -> None:
    rounds = Rounds()
    for i in range(mr.MAX_HELD_INPUTS):
        assert rounds.on_input(jsonrpc.request(i, "roots/list"), 0) is not None
    assert rounds.on_input(jsonrpc.request(999, "roots/list"), 0) is None


def test_state_round_trips_through_json() -> None:
    rounds = Rounds()
    for req in server_requests():
        rounds.on_input(req, 5)
    rounds.close({"elicitation": {}, "sampling": {}}, "r1")
    again = Rounds.from_json(json.loads(json.dumps(rounds.to_json())))
    assert again == rounds

"""mcp_eras.bridge.translate.legacy_client.session: the 2025 session rules as a pure machine over plain data.

Every answer the machine emits toward the 2025 client is validated against the 2025-11-25 schema; every
canonical request toward the upstream against the 2026-07-28 schema.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from mcp_eras.bridge.layers import managed
from mcp_eras.bridge.translate import headers as mirror_headers
from mcp_eras.bridge.translate import jsonrpc, modern_upstream
from mcp_eras.bridge.translate.eras import META_LOG_LEVEL
from mcp_eras.bridge.translate.legacy_client import frames as lf
from mcp_eras.bridge.translate.legacy_client import mrtr
from mcp_eras.bridge.translate.legacy_client import session as ls
from mcp_eras.bridge.translate.legacy_client import tasks as tlf
from mcp_eras.bridge.translate.mrtr_steps import AskClient, Finish, Resume, final, notes

import spec

BRIDGE = {"name": "mcp-bridge", "version": "0.1.0"}
CLIENT_INFO = {"name": "legacy-client", "version": "1.2.3"}
CAPS = {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}}
IDLE = 60.0


def discover(**caps: Any) -> dict[str, Any]:
    result = spec.example("DiscoverResult", "server-capabilities-discovery.json")
    result = {**result, "capabilities": caps or {"tools": {"listChanged": True},
                                                 "resources": {"subscribe": True, "listChanged": True}}}
    spec.modern("DiscoverResult", result)
    return result


def session(now: float = 100.0, principal: str | None = "p1", **caps: Any) -> ls.SessionState:
    identity = lf.parse_initialize({"protocolVersion": "2025-11-25", "capabilities": CAPS, "clientInfo": CLIENT_INFO})
    state, result = ls.open_session(identity, discover(**caps), BRIDGE, now=now, idle_timeout=IDLE, session_id="s1",
                                    principal=principal)
    spec.legacy("InitializeResult", result)
    return state


def answer(state: ls.SessionState, msg: dict[str, Any]) -> dict[str, Any]:
    decision = ls.on_request(state, msg)
    assert isinstance(decision, ls.Answer), decision
    frame = decision.response
    spec.legacy("JSONRPCErrorResponse" if "error" in frame else "JSONRPCResultResponse", frame)
    return frame


def test_state_round_trips_through_json() -> None:
    state = session()
    ls.claim_id(state, 1)
    ls.begin(state, "x")
    ls.ask(state, "x")
    ls.admit_progress(state, {"params": {"progressToken": 7, "progress": 1}})
    state.subscribed = ["file:///a"]
    again = ls.SessionState.from_json(json.loads(json.dumps(state.to_json())))
    assert again == state


def test_every_local_rule_cites_the_spec() -> None:
    for method, rule in ls.LOCAL_REQUESTS.items():
        assert re.search(r"2025-11-25 [\w/.-]+\.mdx §", rule.spec), method


def test_ping_is_answered_locally_with_an_empty_result() -> None:
    ping = spec.example("CallToolRequest")  # any request shape; ping carries no params
    assert answer(session(), jsonrpc.request(ping["id"], "ping")) == {"jsonrpc": "2.0", "id": ping["id"], "result": {}}


def test_second_initialize_is_refused() -> None:
    out = answer(session(), jsonrpc.request(2, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                              "clientInfo": CLIENT_INFO}))
    assert out["error"]["code"] == -32600


def test_set_level_is_kept_and_stamped_on_later_requests() -> None:
    state = session()
    assert answer(state, jsonrpc.request(1, "logging/setLevel", {"level": "warning"}))["result"] == {}
    assert state.identity.log_level == "warning"
    forward = ls.on_request(state, jsonrpc.request(2, "tools/list"))
    assert isinstance(forward, ls.Forward)
    assert forward.canonical["params"]["_meta"][META_LOG_LEVEL] == "warning"
    spec.modern("ListToolsRequest", forward.canonical)
    bad = answer(state, jsonrpc.request(3, "logging/setLevel", {"level": "loud"}))
    assert bad["error"]["code"] == -32602
    assert state.identity.log_level == "warning"


def test_log_filter_uses_the_level_of_the_request() -> None:
    note = spec.example("LoggingMessageNotification")
    spec.legacy("LoggingMessageNotification", note)
    level = note["params"]["level"]
    assert ls.admit_log(level, note)
    assert not ls.admit_log(None, note)  # no setLevel: nothing (2026 logs are opt-in)
    assert not ls.admit_log("emergency", note) or level == "emergency"
    assert ls.admit_log("debug", {"params": {"level": "made-up"}})


def test_request_ids_must_not_be_reused() -> None:
    state = session()
    assert ls.start_request(state, 1) == ls.id_key(1)
    assert ls.start_request(state, 1) is ls.REUSED_ID
    ls.finish(state, 1)
    assert not ls.claim_id(state, 1)
    assert ls.claim_id(state, "1")  # a string id is another id
    ls.begin(state, "running")
    assert not ls.claim_id(state, "running")
    for i in range(ls.ID_MEMORY + 1):
        ls.claim_id(state, f"n{i}")
    assert ls.claim_id(state, 1)  # aged out of the bounded memory
    assert ls.REUSED_ID.response(1)["error"]["code"] == -32600
    spec.legacy("JSONRPCErrorResponse", ls.REUSED_ID.response(1))


def test_long_request_ids_are_refused_and_remembered_ids_are_capped_in_characters() -> None:
    """Issue #33: 1 MB ids were remembered (4,096 of them per session). An id over ID_MAX_CHARS is refused with
    -32600 naming the limit; the remembered ids stay under ID_MEMORY_CHARS characters."""
    state = session()
    long_id = "x" * (ls.ID_MAX_CHARS + 1)
    refusal = ls.start_request(state, long_id)
    assert refusal is ls.LONG_ID and state.recent_ids == [] and state.inflight == []
    error = refusal.response(long_id)
    spec.legacy("JSONRPCErrorResponse", error)
    assert error["error"]["code"] == -32600 and error["error"]["data"] == {"limit": ls.ID_LIMIT, "max": ls.ID_MAX_CHARS}
    assert ls.start_request(state, "y" * ls.ID_MAX_CHARS) == ls.id_key("y" * ls.ID_MAX_CHARS)  # at the limit: fine
    ids = [f"{i:04}" + "z" * (ls.ID_MAX_CHARS - 4) for i in range(2 * ls.ID_MEMORY_CHARS // ls.ID_MAX_CHARS)]
    for rid in ids:
        assert ls.claim_id(state, rid)
    assert state.recent_chars == sum(map(len, state.recent_ids)) <= ls.ID_MEMORY_CHARS
    assert len(state.recent_ids) >= ls.ID_MEMORY_CHARS // (ls.ID_MAX_CHARS + 8)
    assert not ls.claim_id(state, ids[-1]) and ls.claim_id(state, ids[0])  # the oldest aged out
    restored = ls.SessionState.from_json(state.to_json())  # the derived count is rebuilt on first use
    assert not ls.claim_id(restored, ids[-1]) and ls.claim_id(restored, "new")
    assert restored.recent_chars == sum(map(len, restored.recent_ids)) <= ls.ID_MEMORY_CHARS


def test_requests_in_flight_are_capped_per_session() -> None:
    state = session()
    for n in range(ls.INFLIGHT_MAX):
        assert ls.start_request(state, n) == ls.id_key(n)
    busy = ls.start_request(state, "one more")
    assert busy is ls.BUSY and busy.status == 429
    spec.legacy("JSONRPCErrorResponse", busy.response("one more"))
    assert busy.response("one more")["error"]["data"] == {"limit": "requests_in_flight", "max": ls.INFLIGHT_MAX}
    ls.finish(state, 0)
    assert ls.start_request(state, "one more") == ls.id_key("one more")  # the refused id was not used up


def test_an_empty_protocol_version_header_is_refused() -> None:
    """2025-11-25 basic/transports.mdx §Protocol Version Header: an absent header assumes 2025-03-26; an empty one is
    an invalid version (400), on initialize too."""
    state = session()
    state.principal = None
    refused = ls.admit_http(state, has_session_header=True, principal=None, protocol_version="", now=0.0)
    assert refused is not None and refused.status == 400 and refused.code == -32600
    assert ls.admit_http(state, has_session_header=True, principal=None, protocol_version=None, now=0.0) is None
    assert ls.admit_initialize("") is not None and ls.admit_initialize(" ") is not None
    assert ls.admit_initialize(None) is None and ls.admit_initialize("2025-11-25") is None


def test_unknown_and_removed_methods() -> None:
    state = session()
    assert answer(state, jsonrpc.request(1, "no/such/method"))["error"]["code"] == -32601
    # the 2025 tasks methods are forwarded (the tasks layer answers them), not refused here
    assert isinstance(ls.on_request(state, jsonrpc.request(3, "tasks/list")), ls.Forward)
    assert answer(state, jsonrpc.request(2, "server/discover"))["error"]["code"] == -32601


def test_forwarded_request_is_canonical() -> None:
    state = session()
    call = {**spec.example("CallToolRequest")}
    call["params"] = {k: v for k, v in call["params"].items() if k != "_meta"}
    spec.legacy("CallToolRequest", call)
    decision = ls.on_request(state, call)
    assert isinstance(decision, ls.Forward)
    spec.modern("CallToolRequest", decision.canonical)
    assert decision.rounds.canonical is decision.canonical and decision.rounds.max_rounds == state.max_rounds


def test_subscribe_changes_the_listen_filter() -> None:
    state = session()
    ls.set_streaming(state, True)
    assert ls.listen_filter(state) == {"toolsListChanged": True, "resourcesListChanged": True}
    msg = jsonrpc.request(1, "resources/subscribe", {"uri": "file:///a"})
    spec.legacy("SubscribeRequest", msg)
    change = ls.on_request(state, msg)
    assert isinstance(change, ls.ChangeSubscriptions)
    assert change.filter == {"toolsListChanged": True, "resourcesListChanged": True, "resourceSubscriptions": ["file:///a"]}
    spec.modern("SubscriptionsListenRequest", lf.listen_request(1, state.identity, change.filter))
    assert state.subscribed == []  # nothing changes before the upstream acknowledged
    # The upstream granted less than asked: the subscribe fails and the set stays.
    refused = ls.subscription_applied(state, 1, change, {"toolsListChanged": True})
    assert refused["error"]["code"] == -32603 and state.subscribed == []
    done = ls.subscription_applied(state, 1, change, change.filter)
    assert done == {"jsonrpc": "2.0", "id": 1, "result": {}} and state.subscribed == ["file:///a"]
    assert ls.wants_update(state, "file:///a") and ls.wants_update(state, "file:///a/child")
    assert not ls.wants_update(state, "file:///b") and not ls.wants_update(state, None)
    unsub = ls.on_request(state, jsonrpc.request(2, "resources/unsubscribe", {"uri": "file:///a"}))
    assert isinstance(unsub, ls.ChangeSubscriptions) and unsub.wanted == []
    assert ls.subscription_applied(state, 2, unsub, {})["result"] == {} and state.subscribed == []


def test_subscribe_refusals() -> None:
    state = session(tools={})
    assert answer(state, jsonrpc.request(1, "resources/subscribe", {"uri": "file:///a"}))["error"]["code"] == -32601
    state = session()
    assert answer(state, jsonrpc.request(2, "resources/subscribe", {"uri": 5}))["error"]["code"] == -32602
    change = ls.on_request(state, jsonrpc.request(3, "resources/subscribe", {"uri": "file:///a"}))
    assert isinstance(change, ls.ChangeSubscriptions)
    no_listen = ls.subscription_applied(state, 3, change, None, jsonrpc.FrameError(-32601, "no listen"))
    assert no_listen["error"]["code"] == -32601
    failed = ls.subscription_applied(state, 3, change, None, jsonrpc.FrameError(-32603, "boom"))
    assert failed["error"]["code"] == -32603 and "boom" in failed["error"]["message"]


def test_cancel_names_the_request_and_its_questions() -> None:
    state = session()
    ls.begin(state, 5)
    q1 = ls.ask(state, 5)
    ls.ask(state, 6)
    note = jsonrpc.notification("notifications/cancelled", {"requestId": 5, "reason": "user"})
    spec.legacy("CancelledNotification", note)
    cancel = ls.on_notification(state, note)
    assert cancel == ls.Cancel(ls.id_key(5), [q1])
    ls.finish(state, 5)
    assert state.inflight == [] and list(state.outstanding.values()) == [ls.id_key(6)]
    assert ls.on_notification(state, jsonrpc.notification("notifications/initialized")) is None and state.initialized


def test_responses_match_outstanding_questions_only() -> None:
    state = session()
    out = ls.ask(state, 1)
    assert out == "bridge-1"
    assert ls.on_response(state, jsonrpc.result_response("bridge-9", {})) is None
    assert ls.on_response(state, jsonrpc.result_response(1, {})) is None
    assert ls.on_response(state, jsonrpc.result_response(out, {})) == out
    assert ls.on_response(state, jsonrpc.result_response(out, {})) is None  # answered once
    unanswered = ls.ask(state, 1)
    ls.finish(state, 1)
    assert ls.on_response(state, jsonrpc.result_response(unanswered, {})) is None  # void with its request


def test_progress_strictly_increases_per_token() -> None:
    state = session()
    note = spec.example("ProgressNotification")
    spec.legacy("ProgressNotification", note)
    seq = [10, 20, 20, 5, 30, 1]
    admitted = [p for p in seq if ls.admit_progress(state, {"params": {**note["params"], "progress": p}})]
    assert admitted == [10, 20, 30]
    assert ls.admit_progress(state, {"params": {"progressToken": 1, "progress": 1}})
    assert ls.admit_progress(state, {"params": {"progressToken": "1", "progress": 1}})  # 1 and "1" differ
    assert not ls.admit_progress(state, {"params": {"progressToken": 1, "progress": True}})
    ls.forget_progress(state, 1)
    assert ls.admit_progress(state, {"params": {"progressToken": 1, "progress": 1}})


def test_expiry_is_a_deadline() -> None:
    state = session(now=100.0)
    assert state.deadline == 100.0 + IDLE
    assert not ls.expired(state, 100.0 + IDLE)
    assert ls.expired(state, 100.0 + IDLE + 0.1)
    ls.touch(state, 150.0)
    assert not ls.expired(state, 100.0 + IDLE + 0.1)
    ls.begin(state, 1)
    assert not ls.expired(state, 10_000.0)  # never while a request runs
    assert ls.reap_interval(1800) == 30.0 and ls.reap_interval(1) == 0.5


@pytest.mark.parametrize("kwargs,status,message", [
    ({"has_session_header": False}, 400, "Mcp-Session-Id header is required"),
    ({"state": None}, 404, "Session not found"),
    ({"principal": "someone-else"}, 404, "Session not found"),
    ({"now": 1_000.0}, 404, "Session expired"),
    ({"protocol_version": "2026-07-28"}, 400, "unsupported MCP-Protocol-Version"),
])
def test_http_admission_refusals(kwargs: dict[str, Any], status: int, message: str) -> None:
    state = session(now=100.0)
    args: dict[str, Any] = {"state": state, "has_session_header": True, "principal": "p1", "protocol_version": "2025-11-25",
                            "now": 101.0, **kwargs}
    refusal = ls.admit_http(args.pop("state"), **args)
    assert refusal is not None and refusal.status == status and message in refusal.message
    assert refusal.expire == (message == "Session expired")
    spec.legacy("JSONRPCErrorResponse", refusal.response(None))


def test_http_admission_touches_and_assumes_2025_03_26() -> None:
    state = session(now=100.0)
    assert ls.admit_http(state, has_session_header=True, principal="p1", protocol_version=None, now=130.0) is None
    assert state.deadline == 130.0 + IDLE
    ls.close(state)
    refusal = ls.admit_http(state, has_session_header=True, principal="p1", protocol_version=None, now=131.0)
    assert refusal is not None and refusal.status == 404


def test_before_initialize() -> None:
    assert ls.before_initialize(jsonrpc.request(1, "ping")) == {"jsonrpc": "2.0", "id": 1, "result": {}}
    refused = ls.before_initialize(jsonrpc.request(2, "tools/list"))
    assert refused["error"]["code"] == -32600
    spec.legacy("JSONRPCErrorResponse", refused)
    spec.legacy("JSONRPCErrorResponse", ls.ALREADY_INITIALIZED.response(3))


def test_open_session_refuses_an_upstream_without_2026() -> None:
    identity = lf.parse_initialize({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT_INFO})
    with pytest.raises(jsonrpc.FrameError) as info:
        ls.open_session(identity, {"supportedVersions": ["2025-11-25"], "capabilities": {}}, BRIDGE, now=0.0, idle_timeout=1.0)
    assert info.value.code == -32602
    assert info.value.data["requested"] == "2025-06-18" and "2025-11-25" in info.value.data["supported"]
    spec.legacy("JSONRPCErrorResponse", info.value.to_response() | {"id": 1})


@pytest.mark.parametrize("method,params", [
    ("tools/call", {"name": 5}),
    ("tools/call", {}),
    ("tools/call", {"name": "t", "arguments": [1]}),
    ("prompts/get", {"name": None}),
    ("resources/read", {"uri": {"x": 1}}),
])
def test_malformed_params_are_invalid_params(method: str, params: dict[str, Any]) -> None:
    out = answer(session(), jsonrpc.request(1, method, params))
    assert out["error"]["code"] == -32602


def test_initialize_requires_client_info() -> None:
    with pytest.raises(jsonrpc.FrameError) as info:
        lf.parse_initialize({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x"}})
    assert info.value.code == -32602


def test_session_caps() -> None:
    limits = {"max_total": 3, "max_per_principal": 2}
    assert ls.admit_new_session("p", 1, 2, **limits) is None
    per = ls.admit_new_session("p", 2, 2, **limits)
    assert per is not None and per.status == 429 and per.data == {"limit": "legacy_sessions_per_principal", "max": 2}
    total = ls.admit_new_session("q", 0, 3, **limits)
    assert total is not None and total.status == 503 and total.data == {"limit": "legacy_sessions_max", "max": 3}
    assert ls.admit_new_session(None, 50, 2, **limits) is None  # anonymous: only the total applies
    spec.legacy("JSONRPCErrorResponse", per.response(0))


def test_the_session_count_admits_counts_refusals_by_limit_and_forgets_closed_sessions() -> None:
    count, limits = ls.SessionCount(), {"max_total": 3, "max_per_principal": 1}
    assert count.admit("p", 0, **limits) is None
    count.opened("p")
    refused = count.admit("p", 1, **limits)
    assert refused is not None and refused.status == 429 and count.refused == {"legacy_sessions_per_principal": 1}
    assert count.admit("q", 3, **limits) is not None and count.refused["legacy_sessions_max"] == 1
    count.opened("p")  # (an adopted session of the same principal)
    count.closed("p")
    assert count.per_principal == {"p": 1}
    count.closed("p")
    assert count.per_principal == {} and count.admit("p", 0, **limits) is None


def test_listen_filter_follows_streaming_and_subscriptions() -> None:
    state = session()
    assert ls.listen_filter(state) == {}  # HTTP, no GET stream yet: no listen
    assert ls.set_streaming(state, True) == {"toolsListChanged": True, "resourcesListChanged": True}
    assert ls.set_streaming(state, False) == {}
    change = ls.on_request(state, jsonrpc.request(1, "resources/subscribe", {"uri": "file:///a"}))
    assert isinstance(change, ls.ChangeSubscriptions) and change.filter["resourceSubscriptions"] == ["file:///a"]
    ls.subscription_applied(state, 1, change, change.filter)
    assert ls.listen_filter(state)["resourceSubscriptions"] == ["file:///a"]
    limit = jsonrpc.FrameError(-32000, "Too many upstream listens", {"limit": "legacy_listens_max"})
    refused = ls.subscription_applied(state, 2, change, None, limit)
    assert refused["error"]["data"] == {"limit": "legacy_listens_max"}


def test_a_roots_change_is_passed_on_only_after_initialized_and_only_from_a_client_with_roots() -> None:
    change = jsonrpc.notification("notifications/roots/list_changed")
    spec.legacy("RootsListChangedNotification", change)
    state = session()
    assert ls.on_notification(state, change) is None  # before notifications/initialized (2025-11-25 lifecycle)
    ls.on_notification(state, jsonrpc.notification("notifications/initialized"))
    assert ls.on_notification(state, change) == ls.RootsChanged()
    state.identity.client_capabilities = {k: v for k, v in CAPS.items() if k != "roots"}
    assert ls.on_notification(state, change) is None  # it never declared roots


def test_reused_ids_are_refused_after_a_json_round_trip() -> None:
    state = session()
    assert ls.claim_id(state, 1)
    data = json.loads(json.dumps(state.to_json()))
    assert "recent_index" not in data  # derived from recent_ids, never stored
    restored = ls.SessionState.from_json(data)
    assert restored == state
    assert not ls.claim_id(restored, 1) and ls.claim_id(restored, 2)
    for i in range(ls.ID_MEMORY + 2):
        ls.claim_id(restored, f"n{i}")
    assert restored.recent_index == set(restored.recent_ids) and len(restored.recent_ids) == ls.ID_MEMORY


def test_forwarded_requests_alias_nothing_that_is_changed() -> None:
    """The canonical request and the rounds keep the client's message and the session's identity by reference
    (no copy per call): neither the machine nor any step the request takes upstream changes them in place."""
    state = session()
    msg = jsonrpc.request(7, "tools/call", {"name": "t", "arguments": {"deep": {"list": [1, {"x": 2}]}},
                                            "task": {"ttl": 5}, "_meta": {"progressToken": "p", "traceparent": "00-a"}})
    msg_before, state_before = copy.deepcopy(msg), copy.deepcopy(state.to_json())
    forward = ls.on_request(state, msg)
    assert isinstance(forward, ls.Forward)
    canonical = forward.canonical
    canonical_before = copy.deepcopy(canonical)
    # every step a canonical request of the 2025 front takes on its way upstream
    tlf.modern_call(canonical)
    tlf.without_task_request(canonical)
    tlf.upstream_request(canonical, "tasks/get", {"taskId": "t"})
    modern_upstream.prepare_wire(canonical, 5)
    managed.with_trace_meta(canonical, {"traceparent": "00-b", "tracestate": "x=1"})
    mirror_headers.routing_headers(canonical)
    url = {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://a.example"}}
    upstream_answer = jsonrpc.result_response(7, {"resultType": "input_required", "requestState": "s",
                                                  "inputRequests": {"k": url}})
    answer_before = copy.deepcopy(upstream_answer)
    [step] = mrtr.on_upstream(forward.rounds, upstream_answer, {"elicitation": {"url": {}}}, lambda: "q1", lambda: "e1")
    assert isinstance(step, AskClient) and step.inputs["k"]["params"]["elicitationId"] == "e1"
    [retry] = mrtr.on_answers(forward.rounds, {"k": jsonrpc.result_response("q1", {"action": "accept"})})
    assert isinstance(retry, Resume)
    retry.request["params"]["extra"] = True  # a retry's params are its own
    done = mrtr.on_upstream(forward.rounds, jsonrpc.result_response(7, {"content": []}), {}, lambda: "q2", lambda: "e2")
    assert isinstance(final(done), Finish) and notes(done) == [mrtr.elicitation_complete("e1")]
    assert upstream_answer == answer_before and "elicitationId" not in url["params"]
    assert canonical == canonical_before and msg == msg_before and state.to_json() == state_before
    # the forwarded request's own levels (params, _meta) are new objects: changing them reaches nothing else
    canonical["params"]["_meta"].clear()
    canonical["params"]["name"] = "other"
    again = ls.on_request(state, msg)
    assert isinstance(again, ls.Forward) and again.canonical == canonical_before
    assert msg == msg_before and state.to_json() == state_before

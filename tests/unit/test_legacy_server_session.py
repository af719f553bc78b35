"""translate.legacy_server.session: the rules of one 2025 upstream session that are not a call's, fed the 2025-11-25
schema's shapes (InitializeRequest, JSON-RPC errors)."""

from __future__ import annotations

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.legacy_server import session as rules
from mcp_eras.bridge.translate.legacy_server.pool import LIMIT_ERROR, Refuse

import spec

BRIDGE = {"name": "mcp-bridge", "version": "0.1.0"}


def test_the_handshake_names_the_client_or_the_bridge() -> None:
    params = rules.initialize_request_params({"elicitation": {}}, {"name": "ExampleClient", "version": 2}, BRIDGE)
    assert params["clientInfo"] == {"name": "ExampleClient", "version": "2"} and params["protocolVersion"] == "2025-11-25"
    spec.legacy("InitializeRequest", jsonrpc.request(0, "initialize", params))
    assert rules.initialize_request_params(None, None, BRIDGE)["clientInfo"] == BRIDGE
    assert rules.initialize_request_params(None, {"name": "n"}, BRIDGE)["clientInfo"] == {"name": "n", "version": "0"}
    assert "'2024-01-01'" in rules.unsupported_version({"protocolVersion": "2024-01-01"})
    assert "None" in rules.unsupported_version(None)


def test_the_bridges_own_requests_succeed_with_a_result_or_fail_by_name() -> None:
    assert rules.own_request_outcome("logging/setLevel", jsonrpc.result_response(1, {})) == {}
    assert rules.own_request_outcome("initialize", jsonrpc.result_response(1, {"a": 1})) == {"a": 1}
    assert rules.own_request_outcome("x", {"jsonrpc": "2.0", "id": 1, "result": "odd"}) == {}
    failed = rules.own_request_outcome("resources/subscribe", jsonrpc.error_response(1, -32601, "Method not found"))
    assert failed == "upstream resources/subscribe failed: Method not found"
    assert rules.own_request_outcome("x", {"jsonrpc": "2.0", "id": 1, "error": "bad"}) == "upstream x failed: {}"


def test_frames_for_lost_calls_and_unknown_requests() -> None:
    lost = rules.lost_call_frame(4, "process exited with 1")
    assert lost["id"] == 4 and lost["error"] == {"code": -32603, "message": "Upstream failed: process exited with 1"}
    unknown = rules.unknown_method_frame("s-1", "tasks/list")
    assert unknown["error"]["code"] == -32601 and "tasks/list" in unknown["error"]["message"]
    spec.legacy("JSONRPCErrorResponse", unknown)


def test_log_level_held_wait_expiry_and_parked_lifetime() -> None:
    assert rules.wants_log_level(False, {"logging": {}}) and not rules.wants_log_level(True, {"logging": {}})
    assert not rules.wants_log_level(False, {}) and not rules.wants_log_level(False, {"logging": True})
    assert rules.held_wait_ms(5.0) == 5_000 and rules.held_wait_ms(300.0) == int(rules.HELD_WAIT_S * 1000)
    expired = jsonrpc.error_response(1, -32600, "Session not found", {"sessionExpired": True})
    assert rules.session_expired(expired) and not rules.session_expired(jsonrpc.error_response(1, -32600, "x"))
    assert not rules.session_expired(jsonrpc.result_response(1, {}))
    assert rules.parked_lifetime(300.0, 600.0) == 300.0 and rules.parked_lifetime(900.0, 600.0) == 600.0


def test_the_named_refusals_of_a_call() -> None:
    refused = rules.refusal_error(Refuse("total_sessions", "Too many upstream sessions", 503))
    assert (refused.code, refused.data, refused.http_status) == (LIMIT_ERROR, {"limit": "total_sessions"}, 503)
    for err, limit in ((rules.no_session_in_time(), "per_identity_sessions"), (rules.no_lease_in_time(), "lease_wait")):
        assert err.code == LIMIT_ERROR and err.http_status == 503 and err.data == {"limit": limit}
    for err, reason in ((rules.unknown_state(), "unknown"), (rules.lost_state(), "lost")):
        assert err.code == -32602 and err.message.startswith("Invalid requestState:") and err.data == {"reason": reason}
    assert jsonrpc.upstream_error(3, "boom")["error"] == {"code": -32603, "message": "Upstream error: boom"}
    assert rules.no_answer_in_time(3)["error"]["message"] == "Upstream did not answer in time"


def test_the_failures_every_shell_answers_with() -> None:
    assert jsonrpc.upstream_unavailable(1, "refused")["error"] == {"code": -32603, "message": "Upstream unavailable: refused"}
    assert jsonrpc.bridge_failure("x", KeyError("secret"))["error"] == {"code": -32603, "message": "Internal error: KeyError"}

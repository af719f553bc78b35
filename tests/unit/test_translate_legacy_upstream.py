"""Direction A pure core, fed with the spec's 2026-07-28 examples; every frame it emits is validated
against the schema of the peer that receives it (2025-11-25 upstream, 2026-07-28 client)."""

from __future__ import annotations

import copy
import time

import jsonschema
import pytest

from mcp_eras.bridge.state import StateSealer
from mcp_eras.bridge.translate import eras, errors, jsonrpc, modern_front
from mcp_eras.bridge.translate import headers as mh
from mcp_eras.bridge.translate.jsonrpc import FrameError
from mcp_eras.bridge.translate.legacy_server import frames as tx
from mcp_eras.bridge.translate.request_state import Sealer
from mcp_eras.bridge.upstream.factory import classify_discover_answer

import spec

SERVER_INFO = {"name": "LegacyServer", "version": "1.0.0"}
LEGACY_DEF = {
    "tools/call": "CallToolRequest",
    "tools/list": "ListToolsRequest",
    "prompts/get": "GetPromptRequest",
    "prompts/list": "ListPromptsRequest",
    "resources/read": "ReadResourceRequest",
    "resources/list": "ListResourcesRequest",
    "resources/templates/list": "ListResourceTemplatesRequest",
    "completion/complete": "CompleteRequest",
}
REQUEST_EXAMPLES = [
    "CallToolRequest", "ListToolsRequest", "GetPromptRequest", "ListPromptsRequest", "ReadResourceRequest",
    "ListResourcesRequest", "ListResourceTemplatesRequest", "CompleteRequest",
]


@pytest.mark.parametrize("kind", REQUEST_EXAMPLES)
def test_spec_request_examples_become_valid_legacy_requests(kind: str) -> None:
    for _name, request in spec.examples(kind):
        spec.modern(kind, request)
        modern_front.validate_request(request)
        legacy = tx.to_legacy_request(request, 42, progress_token=42 if tx.client_progress_token(request) is not None else None)
        spec.legacy(LEGACY_DEF[request["method"]], legacy)
        assert legacy["id"] == 42
        meta = (legacy.get("params") or {}).get("_meta", {})
        assert not set(meta) & set(eras.MODERN_REQUEST_META_KEYS)
        # Everything that is not envelope is passed through untouched.
        for key, value in request["params"].items():
            if key not in ("_meta", "inputResponses", "requestState"):
                assert legacy["params"][key] == value


def test_trace_context_and_vendor_meta_survive() -> None:
    request = copy.deepcopy(spec.example("CallToolRequest"))
    request["params"]["_meta"].update({"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                                       "com.example/x": 1, "progressToken": "tok"})
    legacy = tx.to_legacy_request(request, 5, progress_token=5)
    assert legacy["params"]["_meta"] == {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                                         "com.example/x": 1, "progressToken": 5}


def test_mrtr_fields_never_reach_the_legacy_server() -> None:
    request = copy.deepcopy(spec.example("CallToolRequest"))
    request["params"].update({"inputResponses": {"a": {"action": "decline"}}, "requestState": "abc"})
    legacy = tx.to_legacy_request(request, 1)
    assert "inputResponses" not in legacy["params"] and "requestState" not in legacy["params"]
    spec.legacy("CallToolRequest", legacy)


def test_envelope_only_meta_leaves_no_meta_and_the_request_untouched() -> None:
    """The usual 2026 request: its ``_meta`` holds only what the 2025 session carries, so the 2025 request has none;
    the tasks extension's ``task`` field is consumed too, and the client's request is not changed by the copy."""
    request = copy.deepcopy(spec.example("CallToolRequest"))
    request["params"]["task"] = {"ttl": 1000}
    before = copy.deepcopy(request)
    legacy = tx.to_legacy_request(request, 3)
    assert "_meta" not in legacy["params"] and "task" not in legacy["params"]
    assert list(legacy["params"]) == [k for k in request["params"] if k not in ("_meta", "task")]
    assert request == before
    spec.legacy("CallToolRequest", legacy)


INIT_RESULT = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {"listChanged": True}, "resources": {"subscribe": True}, "logging": {},
                     "tasks": {"requests": {"tools": {"call": {}}}}},
    "serverInfo": SERVER_INFO,
    "instructions": "Use the tools.",
}


def test_discover_result_from_initialize() -> None:
    spec.legacy("InitializeResult", INIT_RESULT)
    result = tx.discover_result(INIT_RESULT, supported_versions=["2026-07-28"], ttl_ms=60000, cache_scope="private")
    spec.modern("DiscoverResult", result)
    assert result["capabilities"] == {"tools": {"listChanged": True}, "resources": {"subscribe": True}, "logging": {}}
    assert result["_meta"][eras.META_SERVER_INFO] == SERVER_INFO
    assert result["instructions"] == "Use the tools."
    assert (result["ttlMs"], result["cacheScope"], result["resultType"]) == (60000, "private", "complete")


@pytest.mark.parametrize(("method", "definition", "legacy_result"), [
    ("tools/list", "ListToolsResultResponse", {"tools": [
        {"name": "t", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}], "nextCursor": "c2"}),
    ("prompts/list", "ListPromptsResultResponse", {"prompts": [{"name": "p"}]}),
    ("resources/list", "ListResourcesResultResponse", {"resources": [{"uri": "file:///a", "name": "a"}]}),
    ("resources/templates/list", "ListResourceTemplatesResultResponse", {"resourceTemplates": [{"uriTemplate": "x://{y}", "name": "y"}]}),
    ("resources/read", "ReadResourceResultResponse", {"contents": [{"uri": "file:///a", "text": "hi"}]}),
    ("tools/call", "CallToolResultResponse", {"content": [{"type": "text", "text": "5"}], "isError": False,
                                             "structuredContent": {"v": 5}}),
    ("prompts/get", "GetPromptResultResponse", {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}),
    ("completion/complete", "CompleteResultResponse", {"completion": {"values": ["python"], "hasMore": False}}),
])
def test_legacy_results_become_valid_modern_responses(method: str, definition: str, legacy_result: dict) -> None:
    result = tx.to_modern_result(method, legacy_result, server_info=SERVER_INFO, ttl_ms=0, cache_scope="private")
    spec.modern(definition, jsonrpc.result_response("c1", result))
    assert result["resultType"] == "complete"
    assert result["_meta"][eras.META_SERVER_INFO] == SERVER_INFO
    assert ("ttlMs" in result) == (method in eras.CACHEABLE_METHODS)
    if method == "tools/list":
        assert result["tools"][0]["execution"] == {"taskSupport": "optional"}  # unknown to 2026, passed through
        assert result["nextCursor"] == "c2"


def test_mrtr_retry_results_carry_no_cache_hints() -> None:
    result = tx.to_modern_result("resources/read", {"contents": []}, server_info=None, ttl_ms=5, cache_scope="public", cacheable=False)
    assert "ttlMs" not in result and "cacheScope" not in result


@pytest.mark.parametrize(("legacy_error", "expected_code"), [
    ({"code": -32002, "message": "Resource not found", "data": {"uri": "file:///x"}}, -32602),
    ({"code": -32042, "message": "URL elicitation required", "data": {"elicitations": []}}, -32603),
    ({"code": -32050, "message": "reserved range"}, -32603),
    ({"code": -32601, "message": "Method not found"}, -32601),
    ({"code": -32000, "message": "implementation defined"}, -32000),
    ({"code": 0, "message": "FastMCP bare error"}, 0),
])
def test_error_renumbering(legacy_error: dict, expected_code: int) -> None:
    err = errors.to_modern_error(legacy_error)
    assert err["code"] == expected_code
    spec.modern("JSONRPCErrorResponse", {"jsonrpc": "2.0", "id": 1, "error": err})
    if legacy_error["code"] == -32002:
        assert err["data"] == {"uri": "file:///x"}


def test_fastmcp_unknown_resource_quirk_becomes_spec_not_found() -> None:
    quirk = {"code": 0, "message": "Unknown resource: memo://nope"}
    err = errors.to_modern_error(quirk, "resources/read", {"uri": "memo://nope"})
    assert err == {"code": -32602, "message": "Resource not found", "data": {"uri": "memo://nope"}}
    # Only for resources/read, and only that message.
    assert errors.to_modern_error(quirk, "tools/call", {"name": "x"})["code"] == 0
    assert errors.to_modern_error({"code": 0, "message": "boom"}, "resources/read", {"uri": "u"})["code"] == 0


@pytest.mark.parametrize(("frame", "era"), [
    ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                                     "clientInfo": {"name": "c", "version": "1"}}}, "2025-11-25"),
    ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"_meta": {eras.META_PROTOCOL_VERSION: "2026-07-28"}}}, "2026-07-28"),
    ({"jsonrpc": "2.0", "id": 1, "method": "initialize"}, "2025-11-25"),
    (spec.example("CallToolRequest"), "2026-07-28"),
    ({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, None),
])
def test_frame_era(frame: dict, era: str | None) -> None:
    assert eras.frame_era(frame) == era


def test_capability_mapping_for_the_upstream_session() -> None:
    caps = {"roots": {}, "sampling": {"tools": {}}, "elicitation": {"form": {}, "url": {}}, "extensions": {"x": {}}}
    legacy = tx.client_capabilities_to_legacy(caps)
    # roots.listChanged: the bridge passes a 2025 client's roots change on (LegacyUpstream.roots_changed)
    assert legacy == {"roots": {"listChanged": True}, "sampling": {"tools": {}}, "elicitation": {"form": {}, "url": {}}}
    params = tx.initialize_params(caps, {"name": "c", "version": "1"})
    spec.legacy("InitializeRequest", jsonrpc.request(1, "initialize", params))
    # Pool keys are stable under key order and ignore what 2025 cannot express.
    assert tx.capabilities_key({"sampling": {}, "roots": {}}) == tx.capabilities_key({"roots": {}, "sampling": {}, "extensions": {}})


def test_log_filter() -> None:
    assert tx.log_passes("error", "warning") and not tx.log_passes("info", "warning")
    assert not tx.log_passes("error", None)  # no opt-in, no logs (2026 MUST NOT)
    assert not tx.log_passes("bogus", "debug")


def test_progress_and_log_notifications_are_valid_2026() -> None:
    note = tx.progress_to_client(jsonrpc.notification("notifications/progress", {"progressToken": 9, "progress": 1, "total": 2}), "tok")
    spec.modern("ProgressNotification", note)
    log = tx.strip_notification_meta(jsonrpc.notification("notifications/message", {
        "level": "info", "data": "x", "_meta": {eras.META_RELATED_TASK: {"taskId": "t"}}}))
    spec.modern("LoggingMessageNotification", log)
    assert "_meta" not in log["params"]


# --- requestState -------------------------------------------------------------------------------------

KEY = b"k" * 32


def sealer(instance: str = "inst-a") -> Sealer:
    return Sealer(KEY, instance, ttl_seconds=60)


def test_request_state_roundtrip_and_binding() -> None:
    s = sealer()
    token = s.seal(puc="p1", principal="alice", method="tools/call", digest="d1", round=1, now_ms=1_000)
    claims = s.open(token, principal="alice", method="tools/call", digest="d1", now_ms=2_000)
    assert (claims.puc, claims.round) == ("p1", 1)
    for kwargs, why in [
        ({"principal": "bob"}, "another caller"),
        ({"digest": "d2"}, "another request"),
        ({"method": "prompts/get"}, "another request"),
        ({"now_ms": 1_000 + 60_001}, "expired"),
    ]:
        args = {"principal": "alice", "method": "tools/call", "digest": "d1", "now_ms": 2_000, **kwargs}
        with pytest.raises(FrameError) as info:
            s.open(token, **args)
        assert info.value.code == -32602 and why in info.value.message
    with pytest.raises(FrameError, match="another bridge instance"):
        sealer("inst-b").open(token, principal="alice", method="tools/call", digest="d1", now_ms=2_000)
    with pytest.raises(FrameError, match="integrity"):
        Sealer(b"x" * 32, "inst-a", 60).open(token, principal="alice", method="tools/call", digest="d1", now_ms=2_000)
    for junk in ["", "no-dot", "a.b.c", 12, None, "@@@.###"]:
        with pytest.raises(FrameError):
            s.open(junk, principal="alice", method="tools/call", digest="d1", now_ms=2_000)


def test_the_shell_sealer_reads_the_wall_clock_when_no_time_is_given() -> None:
    shell = StateSealer(KEY, "inst-a", ttl_seconds=60)
    token = shell.seal(puc="p1", principal=None, method="tools/call", digest="d1", round=2)
    claims = shell.open(token, principal=None, method="tools/call", digest="d1")
    now_ms = int(time.time() * 1000)
    assert claims.round == 2 and now_ms < claims.expires_ms <= now_ms + 60_000
    assert sealer().open(token, principal=None, method="tools/call", digest="d1", now_ms=now_ms) == claims
    with pytest.raises(FrameError, match="expired"):
        shell.open(token, principal=None, method="tools/call", digest="d1", now_ms=claims.expires_ms)


def test_request_digest_binds_name_and_arguments() -> None:
    call = spec.example("CallToolRequest")
    other = copy.deepcopy(call)
    other["params"]["arguments"] = {"different": True}
    assert tx.request_digest(call) != tx.request_digest(other)
    retry = copy.deepcopy(call)
    retry["id"] = "new-id"
    retry["params"]["requestState"] = "x"
    retry["params"]["inputResponses"] = {}
    assert tx.request_digest(call) == tx.request_digest(retry)


# --- front validation and era probing -----------------------------------------------------------------


def test_header_value_encoding_roundtrip() -> None:
    for value in ["echo", "héllo", " padded ", "=?base64?abc?=", "a\nb"]:
        encoded = mh.encode_value(value)
        assert all(0x20 <= ord(c) <= 0x7E for c in encoded)
        assert modern_front.decode_header_value(encoded) == value
    assert mh.encode_value("echo") == "echo"
    with pytest.raises(FrameError) as info:
        modern_front.decode_header_value("=?base64?not base64!?=")
    assert info.value.code == -32020


def test_param_header_mirroring() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}, "n": {"type": "integer", "x-mcp-header": "N"},
        "free": {"type": "string"}}}}
    annotations = mh.header_param_names(tool)
    msg = jsonrpc.request(1, "tools/call", {"name": "t", "arguments": {"region": "eu", "n": 7}, "_meta": {}})
    modern_front.check_param_headers(msg, {"mcp-param-region": "eu", "mcp-param-n": "07"}, annotations)  # integers compare numerically
    modern_front.check_param_headers(msg, {"mcp-param-region": "=?base64?ZXU=?=", "mcp-param-n": "7"}, annotations)
    for headers in ({"mcp-param-region": "us", "mcp-param-n": "7"}, {"mcp-param-n": "7"}, {"mcp-param-region": "eu", "mcp-param-n": "8"}):
        with pytest.raises(FrameError) as info:
            modern_front.check_param_headers(msg, headers, annotations)
        assert info.value.code == -32020
    # Absent arguments need no header.
    bare = jsonrpc.request(2, "tools/call", {"name": "t", "arguments": {}, "_meta": {}})
    modern_front.check_param_headers(bare, {}, annotations)


@pytest.mark.parametrize(("status", "body", "era"), [
    (200, {"jsonrpc": "2.0", "id": 1, "result": spec.example("DiscoverResult")}, "2026-07-28"),
    (400, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "x", "data": {"supported": ["2026-07-28"], "requested": "y"}}},
     "2026-07-28"),
    (404, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}, "2026-07-28"),
    (400, {"jsonrpc": "2.0", "id": "server-error", "error": {"code": -32600, "message": "Bad Request: Missing session ID"}}, "2025-11-25"),
    (200, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}, "2025-11-25"),
    (404, None, "2025-11-25"),
    (401, None, None),
    (403, {"error": {"code": -32600, "message": "forbidden"}}, None),
    (None, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Invalid request parameters"}}, "2025-11-25"),
])
def test_probe_classification(status: int | None, body: object, era: str | None) -> None:
    assert classify_discover_answer(status, body) == era


def test_frame_envelope_errors() -> None:
    for raw, code in [(b"{", -32700), (b"[]", -32600), (b"1", -32600), (b'{"jsonrpc":"2.0","id":null,"method":"x"}', -32600),
                      (b'{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}', -32602), (b'{"jsonrpc":"2.0"}', -32600)]:
        with pytest.raises(FrameError) as info:
            jsonrpc.parse_frame(raw)
        assert info.value.code == code, raw
    with pytest.raises(jsonschema.ValidationError):
        spec.modern("DiscoverResult", {"resultType": "complete"})


def test_sse_parser_shared_by_both_upstreams() -> None:
    import anyio

    from mcp_eras.bridge.sse import iter_sse, sse_event, sse_priming

    async def lines(text: str):  # type: ignore[no-untyped-def]
        for line in text.split("\n"):
            yield line

    async def parse(text: str) -> list:
        return [e async for e in iter_sse(lines(text))]

    wire = (sse_priming("ev-1", 1000) + b": keep-alive\n\n" + sse_event({"jsonrpc": "2.0", "method": "x"}, "ev-2")
            + b"event: endpoint\ndata: /messages/?a=1\n\ndata: line one\ndata: line two\n\n").decode()
    events = anyio.run(parse, wire)
    assert [(e.event, e.data, e.id, e.retry) for e in events] == [
        ("message", "", "ev-1", 1000),
        ("message", '{"jsonrpc":"2.0","method":"x"}', "ev-2", None),
        ("endpoint", "/messages/?a=1", None, None),
        ("message", "line one\nline two", None, None),
    ]


def test_accepted_initialize_takes_only_a_revision_the_bridge_speaks() -> None:
    result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "1"}}
    spec.legacy("InitializeResult", result)
    assert tx.accepted_initialize(result) == ("2025-11-25", {"tools": {}}, {"name": "s", "version": "1"})
    assert tx.accepted_initialize({"protocolVersion": "2025-11-25", "capabilities": None}) == ("2025-11-25", {}, None)
    assert tx.accepted_initialize({**result, "protocolVersion": "1999-01-01"}) is None  # lifecycle §Version Negotiation
    assert tx.accepted_initialize(None) is None

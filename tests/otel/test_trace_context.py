"""The pure trace-context core (mcp_eras.bridge.translate.trace_context): W3C formats, extraction from both eras'
requests and HTTP headers, injection into the request sent on, and the semantic-convention attributes."""

from __future__ import annotations

from mcp_eras.bridge.translate import trace_context as tc

TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def call(meta: dict | None = None, name: str = "ask_name", **params: object) -> dict:
    p: dict = {"name": name, "arguments": {"secret": "s3cr3t"}, **params}
    if meta is not None:
        p["_meta"] = meta
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": p}


def test_traceparent_round_trip_and_rejections() -> None:
    parsed = tc.parse_traceparent(TP)
    assert parsed == tc.TraceParent(0x4BF92F3577B34DA6A3CE929D0E0E4736, 0x00F067AA0BA902B7, 1)
    assert parsed.sampled and parsed.header() == TP
    for bad in (None, 5, "", TP.upper(), TP.replace("00-", "ff-", 1), "00-" + "0" * 32 + "-00f067aa0ba902b7-01",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-" + "0" * 16 + "-01", TP + "-extra", TP[:-1] + "g"):
        assert tc.parse_traceparent(bad) is None, bad
    # A later version is read by its first four fields (W3C Trace Context §3.2.4).
    assert tc.parse_traceparent("cc" + TP[2:] + "-what-ever") is not None


def test_tracestate_and_baggage_limits() -> None:
    assert tc.parse_tracestate("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE") == [("rojo", "00f067aa0ba902b7"), ("congo", "t61rcWkgMzE")]
    assert tc.parse_tracestate(",".join(f"k{i}=v" for i in range(33))) is None
    assert tc.parse_tracestate("novalue") is None
    assert tc.valid_baggage("userId=alice,serverNode=DF%2028") and not tc.valid_baggage("x" * 9000)


def test_extract_prefers_meta_then_headers_and_drops_invalid() -> None:
    headers = {"traceparent": TP.replace("00f067aa0ba902b7", "1111111111111111"), "tracestate": "a=b"}
    assert tc.extract(call({"traceparent": TP, "baggage": "k=v"}), headers) == {"traceparent": TP, "baggage": "k=v"}
    assert tc.extract(call({"traceparent": "garbage", "tracestate": "a=b"}), headers) == headers
    assert tc.extract(call(), None) == {}
    assert tc.extract(call({"tracestate": "a=b"}), {}) == {}  # (a tracestate without its traceparent means nothing)


def test_inject_replaces_the_trace_keys_only() -> None:
    original = call({"traceparent": TP, "io.modelcontextprotocol/protocolVersion": "2026-07-28", "tracestate": "a=b"})
    fields = tc.child_fields({"traceparent": TP, "tracestate": "a=b"}, 0x4BF92F3577B34DA6A3CE929D0E0E4736, 0xABC, 1)
    out = tc.inject(original, fields)
    assert out["params"]["_meta"] == {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "tracestate": "a=b",
                                      "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000abc-01"}
    assert original["params"]["_meta"]["traceparent"] == TP  # the caller's request is not changed
    assert tc.inject({"jsonrpc": "2.0", "id": 1, "method": "ping"}, fields)["params"]["_meta"] == fields


def test_attributes_follow_the_conventions_and_hold_no_arguments() -> None:
    req = call({"traceparent": TP})
    attrs = tc.request_attributes(req, "2026-07-28", "2025-11-25", "tcp", session_id="s1", server="files")
    assert attrs == {"mcp.method.name": "tools/call", "mcp.protocol.version": "2026-07-28", "jsonrpc.request.id": "7",
                     "gen_ai.tool.name": "ask_name", "gen_ai.operation.name": "execute_tool", "network.transport": "tcp",
                     "mcp.session.id": "s1", "mcp_eras.server": "files", "mcp_eras.client.era": "2026-07-28",
                     "mcp_eras.upstream.era": "2025-11-25", "mcp_eras.direction": "2026-07-28->2025-11-25"}
    assert "s3cr3t" not in repr(attrs)
    assert "s3cr3t" in repr(tc.request_attributes(req, "2026-07-28", "2025-11-25", with_arguments=True))
    assert tc.span_name(req) == "tools/call ask_name"
    read = {"jsonrpc": "2.0", "id": "r", "method": "resources/read", "params": {"uri": "file:///x"}}
    assert tc.span_name(read) == "resources/read" and tc.request_attributes(read, "a", "b")["mcp.resource.uri"] == "file:///x"
    assert tc.span_name({"method": "prompts/get", "params": {"name": "p"}}) == "prompts/get p"
    retry = call(None, inputResponses={"name": {}}, requestState="x")
    assert tc.request_attributes(retry, "a", "b")["mcp_eras.mrtr.retry"] is True


def test_response_attributes() -> None:
    assert tc.response_attributes({"id": 1, "error": {"code": -32602, "message": "bad"}}) == {
        "error.type": "-32602", "rpc.response.status_code": "-32602"}
    assert tc.response_attributes({"id": 1, "result": {"isError": True, "content": []}}) == {"error.type": "tool_error"}
    asked = {"id": 1, "result": {"resultType": "input_required", "inputRequests": {
        "a": {"method": "sampling/createMessage"}, "b": {"method": "elicitation/create"}}}}
    assert tc.response_attributes(asked) == {"mcp_eras.input.methods": ["elicitation/create", "sampling/createMessage"]}
    assert tc.response_attributes(None, "cancelled") == {"error.type": "cancelled"}
    assert tc.metric_attributes({"mcp.method.name": "tools/call", "jsonrpc.request.id": "7"}, "tool_error") == {
        "mcp.method.name": "tools/call", "error.type": "tool_error"}


def test_task_ids() -> None:
    assert tc.created_task_id({"result": {"resultType": "task", "taskId": "t1"}}) == "t1"
    assert tc.created_task_id({"result": {"task": {"taskId": "t2", "status": "working"}}}) == "t2"
    assert tc.created_task_id({"result": {"content": []}}) is None
    assert tc.polled_task_id({"method": "tasks/get", "params": {"taskId": "t1"}}) == "t1"
    assert tc.polled_task_id({"method": "tools/call", "params": {"taskId": "t1"}}) is None


def test_client_requests_of_a_call_carry_its_trace_context() -> None:
    asked = [{"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage", "params": {"maxTokens": 5}},
             {"jsonrpc": "2.0", "id": 2, "method": "roots/list"}]
    tc.onto_client_requests(asked, call({"traceparent": TP, "baggage": "k=v"}))
    assert [a["params"].get("_meta") for a in asked] == [{"traceparent": TP, "baggage": "k=v"}] * 2
    assert asked[0]["params"]["maxTokens"] == 5
    untouched = [{"jsonrpc": "2.0", "id": 3, "method": "roots/list"}]
    tc.onto_client_requests(untouched, call())
    assert "params" not in untouched[0]


def test_header_fields_of_a_request() -> None:
    assert tc.header_fields(call({"traceparent": TP, "tracestate": "a=b", "other": "x"})) == {"traceparent": TP, "tracestate": "a=b"}
    assert tc.header_fields(call({"io.modelcontextprotocol/protocolVersion": "2026-07-28"})) is None
    assert tc.header_fields(call({"traceparent": "bad"})) is None
    assert tc.header_fields({"jsonrpc": "2.0", "id": 1, "method": "ping"}) is None


def test_network_attributes_of_each_side() -> None:
    """docs/gen-ai/mcp.md §Client/§Server: ``tcp`` (and ``http``) for HTTP, ``pipe`` for stdio; the server's address and
    port as the URL gives them (the scheme's port when none is written), no name lookup."""
    assert tc.front_attributes("tcp") == {"network.transport": "tcp", "network.protocol.name": "http"}
    assert tc.front_attributes("pipe") == {"network.transport": "pipe"} and tc.front_attributes(None) == {}
    assert tc.endpoint_attributes("http://127.0.0.1:3000/mcp") == {
        "network.protocol.name": "http", "network.transport": "tcp", "server.address": "127.0.0.1", "server.port": 3000}
    assert tc.endpoint_attributes("https://mcp.example.com/mcp")["server.port"] == 443
    assert tc.endpoint_attributes("http://[::1]/mcp")["server.address"] == "::1"
    assert "server.port" not in tc.endpoint_attributes("http://host:port/mcp")  # (malformed: the address alone)
    assert tc.endpoint_attributes(None) == {"network.transport": "pipe"}
    assert tc.endpoint_attributes(None, known=False) == {}


def test_error_type_values() -> None:
    """``error.type``: the JSON-RPC code as a string, ``_OTHER`` for an error without an integer code, ``tool_error``;
    the span status description is the error's message, cut at 256 characters."""
    assert tc.error_type({"error": {"code": -32601, "message": "x"}}) == "-32601"
    assert tc.error_type({"error": {"message": "no code"}}) == "_OTHER"
    assert tc.error_type({"error": {"code": "E1"}}) == "_OTHER" and tc.error_type({"error": {"code": True}}) == "_OTHER"
    assert tc.exception_type(ValueError) == "ValueError" and tc.exception_type(tc.TraceParent) == (
        "mcp_eras.bridge.translate.trace_context.TraceParent")
    assert tc.error_message({"error": {"code": 1, "message": "m" * 300}}) == "m" * 256
    assert tc.error_message({"result": {}}) is None and tc.error_message(None) is None
    assert tc.metric_attributes({"mcp.method.name": "ping", "server.port": 80}, "-32601", "-32601") == {
        "mcp.method.name": "ping", "server.port": 80, "error.type": "-32601", "rpc.response.status_code": "-32601"}

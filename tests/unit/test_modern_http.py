"""translate.modern_http: a 2026-07-28 HTTP upstream's request headers, tool annotations and answers, without a
network (2026-07-28 basic/transports/streamable-http.mdx; the spec's example requests)."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate import modern_http as mh
from mcp_eras.bridge.translate.jsonrpc import FrameError

import spec

REGIONAL = {"name": "regional", "inputSchema": {"type": "object", "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"}}}}
BAD = {"name": "bad", "inputSchema": {"type": "object", "properties": {"n": {"type": "number", "x-mcp-header": "N"}}}}


def test_request_headers_carry_version_routing_credentials_trace_and_params() -> None:
    wire = jsonrpc.request(7, "tools/call", {"name": "regional", "arguments": {"region": "eu"}, "_meta": {}})
    headers = mh.request_headers(wire, {"X-Static": "yes"}, "Bearer t", {"traceparent": "00-a-b-01", "x-other": "no"},
                                 {"regional": {("region",): "Region"}})
    assert headers["MCP-Protocol-Version"] == eras.MODERN and headers["Accept"] == "application/json, text/event-stream"
    assert headers["Authorization"] == "Bearer t" and headers["traceparent"] == "00-a-b-01" and "x-other" not in headers
    assert headers["X-Static"] == "yes" and headers["Mcp-Param-Region"] == "eu"
    assert {k.lower() for k in headers} >= {"mcp-method", "mcp-name"}
    bare = mh.request_headers(jsonrpc.request(8, "tools/list", {}), {}, None, None, {})
    assert "Authorization" not in bare and not any(k.startswith("Mcp-Param") for k in bare)


def test_tools_with_invalid_annotations_are_dropped_and_forgotten() -> None:
    cache: dict = {"bad": {("n",): "N"}}
    result = {"tools": [REGIONAL, BAD, "junk"]}
    kept, dropped = mh.learn_tools(cache, result)
    assert [t["name"] for t in kept["tools"]] == ["regional"] and dropped == ["bad"]
    assert cache == {"regional": {("region",): "Region"}}
    same, none = mh.learn_tools(cache, {"tools": [REGIONAL]})
    assert same == {"tools": [REGIONAL]} and none == []
    assert mh.learn_tools(cache, {"content": []}) == ({"content": []}, [])


def test_a_listing_of_the_bridges_own_keeps_only_the_callers_identity() -> None:
    call = spec.example("CallToolRequest")
    meta = mh.listing_meta(call["params"], {"name": "mcp-bridge", "version": "1"})
    assert set(meta) <= set(mh.IDENTITY_KEYS) and meta[eras.META_PROTOCOL_VERSION] == eras.MODERN
    assert eras.META_PROTOCOL_VERSION in mh.listing_meta({}, {"name": "mcp-bridge", "version": "1"})


def test_header_mismatch_and_its_final_error() -> None:
    refused = jsonrpc.error_response(3, jsonrpc.HEADER_MISMATCH, "Header mismatch")
    assert mh.header_mismatch(refused) and not mh.header_mismatch(jsonrpc.result_response(3, {}))
    final = mh.stale_headers_error("c-3", refused)
    assert final["id"] == "c-3" and final["error"]["code"] == -32603 and final["error"]["data"] == refused["error"]


@pytest.mark.parametrize(("ctype", "stream"), [
    ("text/event-stream", True), ("Text/Event-Stream; charset=utf-8", True), ("application/json", False), ("", False)])
def test_is_event_stream(ctype: str, stream: bool) -> None:
    assert mh.is_event_stream(ctype) is stream


def test_a_json_answer_is_the_response_an_idless_error_or_the_status() -> None:
    ours = jsonrpc.dumps(jsonrpc.result_response(5, {"resultType": "complete", "content": []}))
    assert mh.json_answer(ours, 200, None, 5, "caller")["id"] == "caller"
    idless = jsonrpc.dumps({"jsonrpc": "2.0", "error": {"code": -32600, "message": "bad"}})
    assert mh.json_answer(idless, 400, None, 5, "caller")["error"]["code"] == -32600
    assert mh.json_answer(b"", 404, None, 5, "caller")["error"]["code"] == -32601
    assert mh.json_answer(b"<html>", 500, None, 5, "caller")["error"]["data"] == {"httpStatus": 500}
    other = jsonrpc.dumps(jsonrpc.result_response(6, {}))  # another request's response: judged by the status
    assert "error" in mh.json_answer(other, 200, None, 5, "caller")


def test_an_sse_event_carries_the_response_a_notification_or_nothing() -> None:
    note = jsonrpc.notification("notifications/tools/list_changed", {"_meta": {eras.META_SUBSCRIPTION_ID: 5}})
    carried = mh.sse_message(jsonrpc.dumps(note).decode(), 5, "caller")  # a listen's event names the caller's listen
    assert carried is not None and carried[0] == "note" and carried[1]["params"]["_meta"][eras.META_SUBSCRIPTION_ID] == "caller"
    assert mh.sse_message(jsonrpc.dumps(jsonrpc.result_response(5, {})).decode(), 5, "c") == ("response", jsonrpc.result_response(5, {}))
    assert mh.sse_message(jsonrpc.dumps(jsonrpc.result_response(9, {})).decode(), 5, "c") is None
    assert mh.sse_message(jsonrpc.dumps(jsonrpc.request(1, "ping")).decode(), 5, "c") is None
    with pytest.raises(FrameError):
        mh.sse_message("{not json", 5, "c")
    assert mh.no_response("c")["error"]["code"] == -32603 and "timed out" in mh.timed_out("c")["error"]["message"]


def test_when_the_tools_are_listed_first_and_when_a_listing_is_complete() -> None:
    assert mh.needs_tool_schemas("tools/call", False, {"arguments": {"a": 1}})
    assert not mh.needs_tool_schemas("tools/call", True, {"arguments": {"a": 1}})
    assert not mh.needs_tool_schemas("tools/call", False, {"arguments": {}}) and not mh.needs_tool_schemas("tools/list", False, {})
    assert mh.complete_listing({}, {"tools": []}) and not mh.complete_listing({}, {"tools": [], "nextCursor": "c"})
    assert not mh.complete_listing({"cursor": "c"}, {"tools": []})
    refusal = mh.server_request_refusal(jsonrpc.request("s1", "sampling/createMessage", {}))
    assert refusal["id"] == "s1" and refusal["error"]["code"] == -32601

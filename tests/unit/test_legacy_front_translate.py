"""Direction B pure core (mcp_eras.bridge.translate.legacy_client.frames, mcp_eras.bridge.translate.headers).

Inputs are the 2026-07-28 spec examples (tests/data/spec/2026-07-28/examples); every frame the core
emits toward the legacy client is validated against the 2025-11-25 schema, every frame toward the
upstream against the 2026-07-28 schema.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pytest

from mcp_eras.bridge.translate import headers as mh
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.eras import (
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_RELATED_TASK,
    META_SERVER_INFO,
    META_SUBSCRIPTION_ID,
)
from mcp_eras.bridge.translate.jsonrpc import FrameError
from mcp_eras.bridge.translate.legacy_client import frames as lf

import spec

BRIDGE = {"name": "mcp-bridge", "version": "0.1.0"}
CLIENT_INFO = {"name": "legacy-client", "version": "1.2.3"}
FULL_CAPS = {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {"form": {}, "url": {}},
             "tasks": {"list": {}, "requests": {"sampling": {"createMessage": {}}}}, "experimental": {"x": {"y": 1}}}


EXAMPLES = spec.EXAMPLES
example = spec.example
legacy = spec.legacy
modern = spec.modern


def identity(caps: dict[str, Any] | None = None, level: str | None = None) -> lf.SessionIdentity:
    ident = lf.SessionIdentity(protocol_version="2025-11-25", client_capabilities=FULL_CAPS if caps is None else caps,
                               client_info=dict(CLIENT_INFO), log_level=level)
    return ident


# --- version negotiation and initialize --------------------------------------------------------


@pytest.mark.parametrize("requested,answered", [
    ("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"), ("2025-03-26", "2025-03-26"),
    ("2024-11-05", "2024-11-05"), ("2026-07-28", "2025-11-25"), ("1.0.0", "2025-11-25"), (None, "2025-11-25"),
])
def test_negotiate_version(requested: Any, answered: str) -> None:
    assert lf.negotiate_version(requested) == answered


def test_initialize_result_from_spec_discover() -> None:
    discover = example("DiscoverResult", "server-capabilities-discovery.json")
    ident = lf.parse_initialize({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT_INFO})
    result = lf.initialize_result(discover, ident, BRIDGE)
    assert result == {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}, "resources": {}},
        "serverInfo": {"name": "ExampleServer", "version": "1.0.0"},
        "instructions": discover["instructions"],
    }
    legacy("InitializeResult", result)
    legacy("JSONRPCResponse", jsonrpc.result_response(1, result))
    assert ident.server_capabilities == {"tools": {}, "resources": {}}


def test_initialize_result_synthesizes_server_info_and_drops_extensions() -> None:
    caps = example("ServerCapabilities", "extensions-tasks.json") | example("ServerCapabilities", "resources-all-notifications.json")
    discover = {"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": caps, "ttlMs": 0,
                "cacheScope": "private"}
    result = lf.initialize_result(discover, identity(), BRIDGE)
    assert result["serverInfo"] == BRIDGE  # 2025 requires serverInfo; discover only SHOULD carry it
    assert "extensions" not in result["capabilities"]
    assert result["capabilities"]["resources"] == caps["resources"]
    legacy("InitializeResult", result)


def test_initialize_refused_when_upstream_lacks_2026() -> None:
    discover = {"resultType": "complete", "supportedVersions": ["2027-01-01"], "capabilities": {}}
    with pytest.raises(FrameError) as err:
        lf.initialize_result(discover, identity(), BRIDGE)
    assert err.value.code == -32602
    assert err.value.data["requested"] == "2025-11-25"
    assert "2025-11-25" in err.value.data["supported"]
    legacy("JSONRPCErrorResponse",
           err.value.to_response() | {"id": 1})


@pytest.mark.parametrize("params", [None, {"capabilities": {}}, {"protocolVersion": 5}, {"protocolVersion": "2025-11-25",
                                                                                           "capabilities": []}])
def test_parse_initialize_rejects_bad_params(params: Any) -> None:
    with pytest.raises(FrameError) as err:
        lf.parse_initialize(params)
    assert err.value.code == -32602


@pytest.mark.parametrize("info", [None, "client", {"name": "c"}, {"name": "c", "version": 1}, {"version": "1"}])
def test_parse_initialize_requires_client_info(info: Any) -> None:
    params = {"protocolVersion": "2025-11-25", "capabilities": {}}
    if info is not None:
        params["clientInfo"] = info
    with pytest.raises(FrameError) as err:
        lf.parse_initialize(params)
    assert err.value.code == -32602 and "clientInfo" in err.value.message


# --- capabilities --------------------------------------------------------------------------------


def test_client_capabilities_mapping() -> None:
    mapped = lf.map_client_capabilities(FULL_CAPS)
    assert mapped == {"roots": {}, "sampling": {}, "elicitation": {"form": {}, "url": {}}, "experimental": {"x": {"y": 1}}}
    modern("ClientCapabilities", mapped)
    assert lf.map_client_capabilities({}) == {}


@pytest.mark.parametrize("name", sorted(p.name for p in (EXAMPLES / "ClientCapabilities").iterdir()))
def test_client_capabilities_examples_survive_mapping(name: str) -> None:
    caps = example("ClientCapabilities", name)
    mapped = lf.map_client_capabilities(caps)
    modern("ClientCapabilities", mapped)
    assert "extensions" not in mapped and "tasks" not in mapped
    for key in ("sampling", "elicitation"):
        assert mapped.get(key) == caps.get(key)


@pytest.mark.parametrize("name", sorted(p.name for p in (EXAMPLES / "ServerCapabilities").iterdir()))
def test_server_capabilities_examples(name: str) -> None:
    caps = example("ServerCapabilities", name)
    mapped = lf.map_server_capabilities(caps)
    legacy("ServerCapabilities", mapped)
    assert mapped == {k: v for k, v in caps.items() if k != "extensions"}


def test_client_declares() -> None:
    form = example("ElicitRequest")
    url = {"method": "elicitation/create", "params": example("ElicitRequestURLParams")}
    sampling = example("CreateMessageRequest")
    roots = {"method": "roots/list"}
    assert all(lf.client_declares(FULL_CAPS, r) for r in (form, url, sampling, roots))
    assert lf.client_declares({"elicitation": {}}, form)  # {} means form only
    assert not lf.client_declares({"elicitation": {}}, url)
    assert not lf.client_declares({"elicitation": {"url": {}}}, form)
    assert not lf.client_declares({}, sampling) and not lf.client_declares({}, roots)
    tools_sampling = copy.deepcopy(sampling)
    tools_sampling["params"]["tools"] = []
    assert not lf.client_declares({"sampling": {}}, tools_sampling)
    assert lf.client_declares({"sampling": {"tools": {}}}, tools_sampling)
    context_sampling = copy.deepcopy(sampling)
    context_sampling["params"]["includeContext"] = "thisServer"
    assert lf.client_declares({"sampling": {}}, context_sampling)  # no stricter than the client it fronts (#17)


# --- requests ------------------------------------------------------------------------------------


def test_canonical_request_stamps_meta() -> None:
    msg = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
           "params": {"name": "get_weather", "arguments": {"location": "New York"}, "task": {"ttl": 1000},
                      "_meta": {"progressToken": "p1", META_RELATED_TASK: {"taskId": "t"}, "traceparent": "00-x"}}}
    out = lf.to_canonical_request(msg, identity(level="info"))
    meta = out["params"]["_meta"]
    assert out["id"] == 7 and out["method"] == "tools/call"
    assert meta[META_PROTOCOL_VERSION] == "2026-07-28"
    assert meta[META_CLIENT_CAPABILITIES] == lf.map_client_capabilities(FULL_CAPS)
    assert meta[META_CLIENT_INFO] == CLIENT_INFO
    assert meta[META_LOG_LEVEL] == "info"
    assert meta["progressToken"] == "p1" and meta["traceparent"] == "00-x"
    assert META_RELATED_TASK not in meta and "task" not in out["params"]
    modern("CallToolRequest", out)
    assert msg["params"]["_meta"][META_RELATED_TASK] == {"taskId": "t"}  # input untouched


def test_canonical_request_without_params_and_without_level() -> None:
    out = lf.to_canonical_request({"jsonrpc": "2.0", "id": "a", "method": "tools/list"}, identity(caps={}))
    assert out["params"] == {"_meta": {META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {},
                                       META_CLIENT_INFO: CLIENT_INFO}}
    modern("ListToolsRequest", out)


@pytest.mark.parametrize("method,params,definition", [
    ("resources/read", {"uri": "file:///a"}, "ReadResourceRequest"),
    ("prompts/get", {"name": "p", "arguments": {"x": "1"}}, "GetPromptRequest"),
    ("resources/templates/list", {"cursor": "c"}, "ListResourceTemplatesRequest"),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "b"}},
     "CompleteRequest"),
])
def test_canonical_requests_validate(method: str, params: dict[str, Any], definition: str) -> None:
    legacy_msg = jsonrpc.request(3, method, params)
    legacy(definition, legacy_msg)
    modern(definition, lf.to_canonical_request(legacy_msg, identity()))


def test_listen_filter_and_request() -> None:
    caps = {"tools": {"listChanged": True}, "prompts": {}, "resources": {"listChanged": True, "subscribe": True}}
    assert lf.listen_filter(caps, []) == {"toolsListChanged": True, "resourcesListChanged": True}
    filt = lf.listen_filter(caps, ["b://2", "a://1", "a://1"])
    assert filt["resourceSubscriptions"] == ["a://1", "b://2"]
    assert lf.listen_filter({"resources": {"subscribe": False}}, ["a://1"]) == {}
    req = lf.listen_request("listen-1", identity(level="debug"), filt)
    assert META_LOG_LEVEL not in req["params"]["_meta"]  # logs never travel on a listen stream
    modern("SubscriptionsListenRequest", req)


def test_validate_log_level() -> None:
    assert lf.validate_log_level({"level": "warning"}) == "warning"
    for bad in ({"level": "loud"}, {}, None, {"level": 3}):
        with pytest.raises(FrameError) as err:
            lf.validate_log_level(bad)
        assert err.value.code == -32602


# --- results and errors --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in (EXAMPLES / "CallToolResult").iterdir()))
def test_call_tool_results(name: str) -> None:
    result = example("CallToolResult", name)
    result.setdefault("resultType", "complete")
    result["_meta"] = {META_SERVER_INFO: {"name": "s", "version": "1"}}
    out = lf.to_legacy_result("tools/call", result)
    assert "resultType" not in out and "_meta" not in out
    legacy("CallToolResult", out)
    if "structuredContent" in result and not isinstance(result["structuredContent"], dict):
        assert "structuredContent" not in out
        assert any(c["type"] == "text" for c in out["content"])


def test_non_object_structured_content_gets_a_text_block_when_none_exists() -> None:
    out = lf.to_legacy_result("tools/call", {"resultType": "complete", "content": [], "structuredContent": [1, 2]})
    assert out == {"content": [{"type": "text", "text": "[1,2]"}]}
    legacy("CallToolResult", out)


def test_list_tools_result() -> None:
    result = example("ListToolsResult")
    result["tools"].append({"name": "arr", "inputSchema": {"type": "object"}, "outputSchema": {"type": "array"}})
    result["tools"].append({"name": "obj", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}})
    out = lf.to_legacy_result("tools/list", result)
    assert "ttlMs" not in out and "cacheScope" not in out and "resultType" not in out
    assert out["nextCursor"] == "next-page-cursor"
    tools = {t["name"]: t for t in out["tools"]}
    assert "outputSchema" not in tools["arr"] and tools["obj"]["outputSchema"] == {"type": "object"}
    legacy("ListToolsResult", out)


@pytest.mark.parametrize("kind,method,definition", [
    ("ReadResourceResult", "resources/read", "ReadResourceResult"),
    ("GetPromptResult", "prompts/get", "GetPromptResult"),
    ("ListPromptsResult", "prompts/list", "ListPromptsResult"),
    ("ListResourcesResult", "resources/list", "ListResourcesResult"),
    ("ListResourceTemplatesResult", "resources/templates/list", "ListResourceTemplatesResult"),
    ("CompleteResult", "completion/complete", "CompleteResult"),
])
def test_results_validate_as_legacy(kind: str, method: str, definition: str) -> None:
    for path in sorted((EXAMPLES / kind).iterdir()):
        result = json.loads(path.read_text())
        out = lf.to_legacy_result(method, result)
        assert not {"resultType", "ttlMs", "cacheScope"} & set(out)
        legacy(definition, out)


def test_result_meta_keeps_foreign_keys() -> None:
    out = lf.to_legacy_result("tools/list", {"resultType": "complete", "tools": [],
                                             "_meta": {META_SERVER_INFO: {"name": "s", "version": "1"}, "vendor/x": 1}})
    assert out["_meta"] == {"vendor/x": 1}


def test_not_found_renumbered_on_resources_read_only() -> None:
    err = {"code": -32602, "message": "Resource not found", "data": {"uri": "file:///nope"}}
    out = lf.to_legacy_response("resources/read", {"jsonrpc": "2.0", "id": 1, "error": err}, 7, {"uri": "file:///nope"})
    assert out["error"] == {"code": -32002, "message": "Resource not found", "data": {"uri": "file:///nope"}}
    assert out["id"] == 7
    assert lf.to_legacy_response("tools/call", {"jsonrpc": "2.0", "id": 1, "error": err}, 1)["error"]["code"] == -32602
    # Without the 2026 not-found shape (data.uri) the error is left alone: it may already be in 2025 terms.
    plain = {"code": -32602, "message": "Unknown resource: x"}
    assert lf.to_legacy_response("resources/read", {"jsonrpc": "2.0", "id": 1, "error": plain}, 1, {"uri": "x"})["error"] == plain
    for name in sorted(p.name for p in (EXAMPLES / "InvalidParamsError").iterdir()):
        error = example("InvalidParamsError", name)
        mapped = lf.to_legacy_response("prompts/get", {"jsonrpc": "2.0", "id": 1, "error": error}, 1)
        assert mapped["error"] == error
        legacy("JSONRPCErrorResponse", mapped)


def test_legacy_response_wrapping() -> None:
    ok = lf.to_legacy_response("tools/call", {"jsonrpc": "2.0", "id": 99, "result": {"resultType": "complete", "content": []}},
                               "L7")
    assert ok == {"jsonrpc": "2.0", "id": "L7", "result": {"content": []}}
    legacy("JSONRPCResponse", ok)
    task = lf.to_legacy_response("tools/call", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "task"}}, 5)
    assert task["error"]["code"] == -32603
    missing = lf.to_legacy_response("resources/read", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}, 5)
    assert missing["error"]["code"] == -32601  # a modern 404/-32601 stays a JSON-RPC error, never an HTTP 404


# --- notifications -------------------------------------------------------------------------------


def test_listen_notifications_lose_their_tag() -> None:
    note = example("ResourceUpdatedNotification")
    out = lf.to_legacy_notification(note)
    assert out is not None
    assert META_SUBSCRIPTION_ID not in json.dumps(out)
    assert out["params"]["uri"] == note["params"]["uri"]
    legacy("ResourceUpdatedNotification", out)
    ack = example("SubscriptionsAcknowledgedNotification")
    assert lf.to_legacy_notification(ack) is None
    tagged = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
              "params": {"_meta": {META_SUBSCRIPTION_ID: 1, "vendor/k": "v"}}}
    assert lf.to_legacy_notification(tagged) == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                                                 "params": {"_meta": {"vendor/k": "v"}}}
    legacy("ToolListChangedNotification", lf.to_legacy_notification(tagged))
    bare = {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": {"_meta": {META_SUBSCRIPTION_ID: "l"}}}
    assert lf.to_legacy_notification(bare) == {"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"}


def test_result_type() -> None:
    assert lf.result_type({"result": {}}) == "complete"
    assert lf.result_type({"result": {"resultType": "input_required"}}) == "input_required"
    assert lf.result_type({"error": {}}) is None


# --- HTTP routing headers (upstream side) --------------------------------------------------------


def test_encode_value() -> None:
    assert mh.encode_value("get_weather") == "get_weather"
    assert mh.encode_value("file:///a b") == "file:///a b"
    for raw in ("héllo", " lead", "trail ", "line\nbreak", "", "=?base64?abc?="):
        enc = mh.encode_value(raw)
        assert enc.startswith("=?base64?") and enc.endswith("?=")
        assert base64.b64decode(enc[9:-2]).decode() == raw


def test_routing_headers() -> None:
    req = example("CallToolRequest")
    assert mh.routing_headers(req) == {"Mcp-Method": "tools/call", "Mcp-Name": "get_weather"}
    assert mh.routing_headers(jsonrpc.request(1, "resources/read", {"uri": "file:///ü"}))["Mcp-Name"].startswith("=?base64?")
    assert mh.routing_headers(jsonrpc.request(1, "tools/list", {})) == {"Mcp-Method": "tools/list"}


def test_x_mcp_header_annotations() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "flag": {"type": "boolean", "x-mcp-header": "Flag"},
        "nested": {"type": "object", "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}}},
        "plain": {"type": "string"}}}}
    ann = mh.header_param_names(tool)
    assert ann == {("region",): "Region", ("count",): "Count", ("flag",): "Flag", ("nested", "zone"): "Zone"}
    headers = mh.param_headers(ann, {"region": "eu west", "count": 3, "flag": False, "nested": {"zone": "ü"}, "plain": "x"})
    assert headers["Mcp-Param-Region"] == "eu west"
    assert headers["Mcp-Param-Count"] == "3" and headers["Mcp-Param-Flag"] == "false"
    assert headers["Mcp-Param-Zone"].startswith("=?base64?")
    assert mh.param_headers(ann, {"region": None}) == {}
    for bad in ({"type": "number", "x-mcp-header": "N"}, {"type": "string", "x-mcp-header": "bad name"},
                {"type": "string", "x-mcp-header": ""}):
        assert mh.header_param_names({"inputSchema": {"type": "object", "properties": {"p": bad}}}) is None
    dup = {"inputSchema": {"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "X"},
                                                            "b": {"type": "string", "x-mcp-header": "x"}}}}
    assert mh.header_param_names(dup) is None
    assert mh.header_param_names({"name": "none"}) == {}

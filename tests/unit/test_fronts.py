"""translate.fronts: what the stdio and HTTP fronts do with a client frame before a session sees it, fed the spec's
example requests (schema/2026-07-28/examples) and 2025 ``initialize``."""

from __future__ import annotations

import json

import pytest

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.fronts import (
    ACCEPTED,
    SKIP,
    Cancel,
    Deliver,
    Refuse,
    Reply,
    Run,
    StdioFront,
    body_too_large,
    declared_over,
    first_frame_era,
    is_legacy_post,
    learn_param_headers,
    legacy_only_refusal,
    method_refusal,
    modern_post,
    modern_stdio_frame,
)

import spec

INITIALIZE = jsonrpc.request(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                               "clientInfo": {"name": "c", "version": "1"}})


def modern_call() -> dict:
    return spec.example("CallToolRequest")


def line(msg: dict) -> bytes:
    return json.dumps(msg).encode() + b"\n"


def test_the_first_frame_chooses_the_era_unless_it_is_pinned() -> None:
    assert first_frame_era(INITIALIZE, "auto") == eras.LEGACY
    assert first_frame_era(modern_call(), "auto") == eras.MODERN
    assert first_frame_era(jsonrpc.request(1, "tools/list"), "auto") == eras.MODERN  # no envelope at all: 2026
    assert first_frame_era(modern_call(), eras.LEGACY) == eras.LEGACY


def test_a_stdio_connection_keeps_the_era_of_its_first_frame() -> None:
    front = StdioFront("auto", serves_legacy=True, max_line_bytes=1024)
    assert front.on_line(b"  \r\n") is SKIP
    bad = front.on_line(b"{not json\n")
    assert isinstance(bad, Reply) and bad.frame["error"]["code"] == -32700 and not bad.stop and front.era is None
    first = front.on_line(line(INITIALIZE))
    assert first == Deliver(INITIALIZE, eras.LEGACY) and front.era == eras.LEGACY
    assert front.on_line(line(modern_call())) == Deliver(modern_call())  # later frames go to the session as they are
    over = front.oversized()
    assert over.stop and "1024 bytes" in over.frame["error"]["message"] and "id" not in over.frame


def test_a_2026_only_stdio_front_refuses_a_2025_first_frame_and_waits_for_another() -> None:
    front = StdioFront("auto", serves_legacy=False, max_line_bytes=1024)
    refused = front.on_line(line(INITIALIZE))
    assert isinstance(refused, Reply) and refused.frame["id"] == 0 and refused.frame["error"]["code"] == -32600
    assert front.era is None
    assert front.on_line(line(modern_call())) == Deliver(modern_call(), eras.MODERN)


def test_a_2026_stdio_client_runs_cancels_and_is_refused_per_frame() -> None:
    call = modern_call()
    assert modern_stdio_frame(call, {}) == Run(call)
    duplicate = modern_stdio_frame(call, {call["id"]: object()})
    assert isinstance(duplicate, Reply) and "already in flight" in duplicate.frame["error"]["message"]
    cancel = jsonrpc.notification("notifications/cancelled", {"requestId": call["id"]})
    assert modern_stdio_frame(cancel, {call["id"]: object()}) == Cancel(call["id"])
    assert modern_stdio_frame(cancel, {}) is SKIP  # nothing in flight by that id
    assert modern_stdio_frame(jsonrpc.notification("notifications/cancelled", {"requestId": [1]}), {}) is SKIP
    assert modern_stdio_frame(jsonrpc.result_response(3, {}), {}) is SKIP
    refused = modern_stdio_frame(INITIALIZE, {})  # a dual-era client falling back to initialize: -32022
    assert isinstance(refused, Reply) and refused.frame["error"]["code"] == -32022
    unversioned = modern_stdio_frame(jsonrpc.request(4, "tools/list"), {})
    assert isinstance(unversioned, Reply) and unversioned.frame["id"] == 4


@pytest.mark.parametrize(("method", "legacy", "refused"), [
    ("POST", False, None), ("POST", True, None), ("GET", True, None), ("DELETE", True, None),
    ("GET", False, "Method Not Allowed: GET (2026-07-28 endpoints accept POST only)"),
    ("DELETE", False, "Method Not Allowed: DELETE (2026-07-28 endpoints accept POST only)"),
    ("PUT", True, "Method Not Allowed: PUT"), ("PATCH", False, "Method Not Allowed: PATCH"),
])
def test_the_endpoint_methods(method: str, legacy: bool, refused: str | None) -> None:
    refusal = method_refusal(method, legacy)
    assert (refusal.message if refusal is not None else None) == refused
    if refusal is not None:
        assert refusal.status == 405 and refusal.headers == {"Allow": "POST"}


def test_a_post_is_2025_by_session_body_or_version_header() -> None:
    call = modern_call()
    assert not is_legacy_post("auto", {}, call)
    assert is_legacy_post(eras.LEGACY, {}, call)
    assert is_legacy_post("auto", {"mcp-session-id": "s"}, call)
    assert is_legacy_post("auto", {}, INITIALIZE)
    bare = jsonrpc.request(1, "tools/list")
    assert is_legacy_post("auto", {}, bare)  # no envelope and no 2026 version header: a 2025 client
    assert not is_legacy_post("auto", {"mcp-protocol-version": eras.MODERN_VERSIONS[0]}, bare)
    assert legacy_only_refusal(call) == Refuse(400, -32600, "Bad Request: this endpoint serves 2025-11-25 sessions only",
                                               call["id"])


def test_a_2026_post_is_dispatched_accepted_or_refused() -> None:
    call = modern_call()
    headers = {"mcp-protocol-version": call["params"]["_meta"][eras.META_PROTOCOL_VERSION], "mcp-method": "tools/call",
               "mcp-name": call["params"]["name"]}
    meta = modern_post(call, headers, {})
    assert isinstance(meta, dict) and meta[eras.META_PROTOCOL_VERSION] == headers["mcp-protocol-version"]
    assert modern_post(jsonrpc.notification("notifications/cancelled", {"requestId": 1}), {}, {}) is ACCEPTED
    bad_note = modern_post(jsonrpc.notification("notifications/cancelled", {}), {}, {})
    assert isinstance(bad_note, Refuse) and bad_note.code == -32602 and bad_note.id is None
    response = modern_post(jsonrpc.result_response(1, {}), {}, {})
    assert isinstance(response, Refuse) and response.status == 400 and "do not send responses" in response.message
    mismatch = modern_post(call, {**headers, "mcp-method": "tools/list"}, {})
    assert isinstance(mismatch, Refuse) and mismatch.code == -32020 and mismatch.id == call["id"]


def test_body_caps() -> None:
    assert declared_over("65", 64) and not declared_over("64", 64)
    assert not declared_over(None, 64) and not declared_over("lots", 64)  # not a number: the reader counts the bytes
    err = body_too_large(64)
    assert err.http_status == 413 and err.code == -32600 and "64 bytes" in err.message and err.id is None


def test_the_front_learns_param_header_annotations_from_relayed_listings() -> None:
    tool = {"name": "regional", "inputSchema": {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"}}}}
    cache: dict = {"plain": {("x",): "X"}}
    listing = jsonrpc.result_response(1, {"tools": [tool, {"name": "plain", "inputSchema": {"type": "object"}}, 7]})
    learn_param_headers(cache, listing)
    assert cache == {"regional": {("region",): "Region"}}  # a tool listed without annotations is forgotten
    learn_param_headers(cache, jsonrpc.error_response(1, -32603, "x"))
    assert cache == {"regional": {("region",): "Region"}}

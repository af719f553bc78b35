"""2026 client capabilities (``_meta["io.modelcontextprotocol/clientCapabilities"]``) whose shape breaks the 2026-07-28
schema's ``ClientCapabilities`` are refused by the front with -32602 naming the field (issue #33): they never reach
an upstream ``initialize`` nor choose an upstream session. Shapes the schema accepts (open set, extra members) pass."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.fronts import Refuse, Reply, modern_post, modern_stdio_frame
from mcp_eras.bridge.translate.modern_front import malformed_capability

import spec

HEADERS = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_weather"}

MALFORMED: list[tuple[Any, str]] = [  # (capabilities, the field the error names)
    (5, "]"),
    ([], "]"),
    ("all", "]"),
    ({"elicitation": 5}, "].elicitation "),
    ({"elicitation": None}, "].elicitation "),
    ({"elicitation": {"form": True}}, "].elicitation.form "),
    ({"elicitation": {"url": []}}, "].elicitation.url "),
    ({"sampling": "yes"}, "].sampling "),
    ({"sampling": {"tools": 1}}, "].sampling.tools "),
    ({"sampling": {"context": "x"}}, "].sampling.context "),
    ({"roots": []}, "].roots "),
    ({"experimental": {"x": 1}}, "].experimental.x "),
    ({"extensions": []}, "].extensions "),
    ({"extensions": {"io.example/ext": "on"}}, "].extensions.io.example/ext "),
]
WELL_FORMED: list[Any] = [
    {},
    {"elicitation": {}, "roots": {}, "sampling": {}},
    {"elicitation": {"form": {}, "url": {}, "extra": 1}, "sampling": {"context": {}, "tools": {}}},
    {"experimental": {"x": {"on": True}}, "extensions": {"io.example/ext": {}}},
    {"somethingNew": 5},  # the set is open: other capabilities pass as they are
]


def call_with(caps: Any) -> dict[str, Any]:
    msg = copy.deepcopy(spec.example("CallToolRequest"))
    msg["params"]["_meta"][eras.META_CLIENT_CAPABILITIES] = caps
    return msg


@pytest.mark.parametrize(("caps", "field"), MALFORMED)
def test_malformed_capabilities_are_refused_naming_the_field(caps: Any, field: str) -> None:
    with pytest.raises(jsonschema.ValidationError):
        spec.modern("ClientCapabilities", caps)  # the schema refuses them too
    refusal = modern_post(call_with(caps), HEADERS, {})
    assert isinstance(refusal, Refuse)
    assert (refusal.status, refusal.code, refusal.id) == (400, jsonrpc.INVALID_PARAMS, call_with(caps)["id"])
    assert f"{eras.META_CLIENT_CAPABILITIES}'{field}" in refusal.message + " "
    reply = modern_stdio_frame(call_with(caps), set())  # the stdio front, the same refusal
    assert isinstance(reply, Reply) and reply.frame["error"]["code"] == jsonrpc.INVALID_PARAMS


@pytest.mark.parametrize("caps", WELL_FORMED)
def test_capabilities_the_schema_accepts_pass(caps: Any) -> None:
    spec.modern("ClientCapabilities", caps)
    assert malformed_capability(caps) is None
    assert isinstance(modern_post(call_with(caps), HEADERS, {}), dict)

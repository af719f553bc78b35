"""A 2025 client's ``initialize`` capabilities whose shape breaks the 2025-11-25 schema's ``ClientCapabilities`` are
refused at the 2025 front with -32602 naming the field (issue #33): they are never carried on to the 2026 upstream
(the bridge sends a 2025 session's capabilities in every request's ``_meta``). Shapes the schema accepts pass."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import FrameError
from mcp_eras.bridge.translate.legacy_client import frames as lf

import spec

CLIENT_INFO = {"name": "c", "version": "1"}
MALFORMED: list[tuple[Any, str]] = [
    (5, "capabilities"),
    ([], "capabilities"),
    ({"elicitation": 5}, "capabilities.elicitation"),
    ({"elicitation": {"form": True}}, "capabilities.elicitation.form"),
    ({"sampling": "yes"}, "capabilities.sampling"),
    ({"sampling": {"tools": 1}}, "capabilities.sampling.tools"),
    ({"roots": []}, "capabilities.roots"),
    ({"experimental": {"x": 1}}, "capabilities.experimental.x"),
    ({"tasks": True}, "capabilities.tasks"),
    ({"tasks": {"list": 1}}, "capabilities.tasks.list"),
]
WELL_FORMED: list[Any] = [
    {},
    {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {"form": {}, "url": {}}},
    {"sampling": {"context": {}, "tools": {}}, "experimental": {"x": {"on": True}}},
    {"tasks": {"list": {}, "cancel": {}, "requests": {"sampling": {"createMessage": {}}}}},
    {"somethingNew": 5},  # the set is open
]


def initialize(caps: Any) -> dict[str, Any]:
    return {"protocolVersion": "2025-11-25", "capabilities": caps, "clientInfo": CLIENT_INFO}


@pytest.mark.parametrize(("caps", "field"), MALFORMED)
def test_malformed_capabilities_are_refused_naming_the_field(caps: Any, field: str) -> None:
    with pytest.raises(jsonschema.ValidationError):
        spec.legacy("InitializeRequestParams", initialize(caps))  # the schema refuses them too
    with pytest.raises(FrameError) as refused:
        lf.parse_initialize(initialize(caps))
    assert refused.value.code == jsonrpc.INVALID_PARAMS
    assert refused.value.data == {"field": field} and field in refused.value.message


@pytest.mark.parametrize("caps", WELL_FORMED)
def test_capabilities_the_schema_accepts_pass(caps: Any) -> None:
    spec.legacy("InitializeRequestParams", initialize(caps))
    assert lf.parse_initialize(initialize(caps)).client_capabilities == caps

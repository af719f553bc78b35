"""mcp_eras.bridge.translate.modern_front.initialize_refusal: ``initialize`` on a connection serving 2026-07-28."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from mcp_eras.bridge.translate import modern_front

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "data" / "spec" / "2026-07-28" / "schema.json").read_text())


def test_initialize_is_refused_with_the_supported_versions_like_a_2026_server() -> None:
    msg = {"jsonrpc": "2.0", "id": 7, "method": "initialize",
           "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}}
    refusal = modern_front.initialize_refusal(msg)
    assert refusal is not None
    response = refusal.to_response()
    assert response["id"] == 7 and response["error"]["code"] == -32022
    assert response["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2025-11-25"}
    jsonschema.validate(response, {**SCHEMA, "$ref": "#/$defs/UnsupportedProtocolVersionError"})


def test_an_initialize_naming_no_version_and_other_methods_are_not_refusals() -> None:
    assert modern_front.initialize_refusal({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}) is None
    assert modern_front.initialize_refusal({"jsonrpc": "2.0", "id": 1, "method": "initialize"}) is None
    assert modern_front.initialize_refusal({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                                            "params": {"protocolVersion": "2025-11-25"}}) is None

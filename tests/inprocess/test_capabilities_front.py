"""The HTTP front refuses a 2026 request whose client capabilities break the schema's shape (issue #33): 400 with
-32602 naming the field, and the upstream never called (so no upstream session is chosen or started for them)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from fakes import FakeUpstream
from starlette.testclient import TestClient

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.translate import eras

import spec

HEADERS = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo",
           "Accept": "application/json, text/event-stream"}


def call_with(caps: Any) -> dict[str, Any]:
    request = copy.deepcopy(spec.example("CallToolRequest"))
    request["params"].update({"name": "echo", "arguments": {"text": "hi"}})
    request["params"]["_meta"][eras.META_CLIENT_CAPABILITIES] = caps
    return request


@pytest.mark.parametrize(("caps", "field"), [({"elicitation": 5}, ".elicitation"), ([], "]"),
                                            ({"sampling": {"tools": True}}, ".sampling.tools")])
def test_malformed_capabilities_never_reach_the_upstream(caps: Any, field: str) -> None:
    upstream = FakeUpstream()
    with TestClient(build_app(Settings(), upstream), base_url="http://127.0.0.1:8000") as client:
        answer = client.post("/mcp", json=call_with(caps), headers=HEADERS)
        assert answer.status_code == 400
        error = answer.json()["error"]
        assert error["code"] == -32602 and field in error["message"]
        assert client.post("/mcp", json=call_with({"elicitation": {}}), headers=HEADERS).status_code == 200
    assert [m["params"]["_meta"][eras.META_CLIENT_CAPABILITIES] for m, _ctx in upstream.calls] == [{"elicitation": {}}]

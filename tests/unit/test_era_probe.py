"""mcp_eras.bridge.translate.probe: which era an upstream speaks, from the evidence of its answers.

Inputs are the 2026-07-28 example messages (tests/data/spec) and the answers real servers give.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from mcp_eras.bridge.translate import probe as ep

import spec

MODERN, LEGACY = "2026-07-28", "2025-11-25"


def test_every_signal_has_a_row_citing_its_reason() -> None:
    assert set(ep.EVIDENCE) == set(ep.Signal.__args__)  # type: ignore[attr-defined]
    for signal, row in ep.EVIDENCE.items():
        assert row.spec, signal
        if row.evidence != "none":
            assert re.search(r"20(25-11-25|26-07-28) [\w/.-]+\.mdx", row.spec), signal


@pytest.mark.parametrize("name,body", spec.examples("DiscoverResult"))
def test_spec_discover_results_are_modern(name: str, body: dict[str, Any]) -> None:
    frame = {"jsonrpc": "2.0", "id": 1, "result": body}
    assert ep.discover_signal(200, frame) == "discover-result-modern"
    assert ep.classify_discover_answer(None, frame) == MODERN


@pytest.mark.parametrize("kind", ["UnsupportedProtocolVersionError", "MissingRequiredClientCapabilityError",
                                  "HeaderMismatchError"])
def test_spec_modern_errors_are_modern(kind: str) -> None:
    example = spec.example(kind)
    error = example.get("error", example)
    assert ep.discover_signal(400, {"jsonrpc": "2.0", "id": 1, "error": error}) == "modern-error"


@pytest.mark.parametrize("status,body,signal", [
    (404, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}, "http-404-method-not-found"),
    (200, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}, "other-error"),
    (None, {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Invalid request parameters"}}, "other-error"),
    (404, None, "other-error"),
    (400, {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Bad Request: Missing session ID"}}, "other-error"),
    (401, None, "unauthorized"),
    (403, {"error": {"code": -32022, "message": "x"}}, "unauthorized"),
    (200, {"jsonrpc": "2.0", "id": 1, "result": {"supportedVersions": ["2025-11-25"], "capabilities": {}}},
     "discover-result-legacy-only"),
])
def test_discover_signals(status: int | None, body: Any, signal: str) -> None:
    assert ep.discover_signal(status, body) == signal


def test_unauthorized_is_no_evidence() -> None:
    assert ep.classify_discover_answer(401, None) is None
    state = ep.ProbeState()
    assert not ep.observe(state, "unauthorized") and state.era is None
    assert not ep.observe(state, "unreachable") and state.era is None


def test_a_legacy_verdict_is_provisional_and_initialize_can_overturn_it() -> None:
    state = ep.ProbeState()
    assert ep.observe(state, "no-answer") and state.era == LEGACY and not state.final
    refused = {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32022, "message": "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
        "data": {"supported": ["2026-07-28"], "requested": "2025-11-25"}}}
    spec.modern("JSONRPCErrorResponse", refused)
    signal = ep.initialize_signal(refused)
    assert signal == "initialize-refused-modern"
    assert ep.observe(state, signal) and state.era == MODERN and state.final
    # A final modern verdict is not undone by a later silence.
    assert not ep.observe(state, "no-answer") and state.era == MODERN
    assert ep.ProbeState.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_initialize_signals() -> None:
    ok = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": LEGACY, "capabilities": {},
                                                "serverInfo": {"name": "s", "version": "1"}}}
    spec.legacy("JSONRPCResultResponse", ok)
    assert ep.initialize_signal(ok) == "initialize-result"
    dual = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "x", "data": {"supported": [MODERN, LEGACY]}}}
    assert ep.initialize_signal(dual) == "other-error"  # names a legacy version: not a modern-only refusal
    assert ep.initialize_signal({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}) == "other-error"
    state = ep.ProbeState()
    ep.observe(state, "initialize-result")
    assert state.era == LEGACY and state.final


def test_discover_deadline_counts_from_readiness() -> None:
    assert ep.discover_deadline(ready_at=12.0, probe_timeout=5.0) == 17.0

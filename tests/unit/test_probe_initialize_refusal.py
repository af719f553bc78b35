"""mcp_eras.bridge.translate.probe: an ``initialize`` refused by a 2026 server overturns a silent probe.

A loaded 2026 server may leave ``server/discover`` unanswered past the probe timeout; the provisional legacy
verdict is then confirmed with ``initialize``, which a 2026-only server refuses naming its versions (2026-07-28
basic/versioning.mdx §Backward Compatibility with Initialization-Based Versions).
"""

from __future__ import annotations

from typing import Any

import pytest

from mcp_eras.bridge.translate import probe as ep

import spec

MODERN, LEGACY = "2026-07-28", "2025-11-25"


def refusal(code: int, supported: list[str] | None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": "refused"}
    if supported is not None:
        error["data"] = {"supported": supported, "requested": LEGACY}
    return {"jsonrpc": "2.0", "id": 1, "error": error}


@pytest.mark.parametrize("answer,signal", [
    (refusal(-32022, [MODERN]), "initialize-refused-modern"),
    (refusal(-32020, None), "initialize-refused-modern"),  # a 2026 error code, no list
    (refusal(-32602, [MODERN]), "initialize-refused-modern"),  # any code, when the list names only 2026 versions
    (refusal(-32600, [MODERN, "2027-01-01"]), "initialize-refused-modern"),
    (refusal(-32602, [MODERN, LEGACY]), "other-error"),  # a 2025 version is on offer: no switch
    (refusal(-32022, [LEGACY]), "other-error"),
    (refusal(-32602, ["2027-01-01"]), "other-error"),  # names no version this bridge knows
    (refusal(-32602, None), "other-error"),
])
def test_initialize_refusals(answer: dict[str, Any], signal: str) -> None:
    spec.modern("JSONRPCErrorResponse", answer)
    assert ep.initialize_signal(answer) == signal


def test_silence_then_a_modern_refusal_is_2026() -> None:
    assert ep.verdict_after_silence(refusal(-32022, [MODERN])) == MODERN
    assert ep.verdict_after_silence(refusal(-32602, [MODERN])) == MODERN


def test_silence_then_a_handshake_or_nothing_stays_2025() -> None:
    ok = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": LEGACY, "capabilities": {},
                                                "serverInfo": {"name": "s", "version": "1"}}}
    assert ep.verdict_after_silence(ok) == LEGACY
    assert ep.verdict_after_silence(None) == LEGACY  # no answer to initialize either
    assert ep.verdict_after_silence(refusal(-32602, None)) == LEGACY  # a 2025 server refusing these params
    assert ep.verdict_after_silence(refusal(-32600, [LEGACY])) == LEGACY


def test_silence_then_an_initialize_only_a_2026_server_gives_is_2026() -> None:
    """The harness's 2026 mocks: one answers initialize with a result negotiating 2026-07-28, another does not know
    the method (every 2025 server has it). After a silent server/discover both are 2026 servers."""
    modern_result = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": MODERN, "capabilities": {},
                                                           "serverInfo": {"name": "s", "version": "1"}}}
    assert ep.initialize_signal(modern_result) == "initialize-result-modern"
    assert ep.verdict_after_silence(modern_result) == MODERN
    unknown = refusal(-32601, None)
    assert ep.initialize_signal(unknown) == "other-error"  # on its own not evidence (test_era_probe)
    assert ep.verdict_after_silence(unknown) == MODERN
    state = ep.ProbeState()
    ep.observe(state, "no-answer")
    assert ep.observe(state, "initialize-unknown-after-silence") and state.era == MODERN and not state.final

"""Pure: which era an upstream server speaks, from the evidence its answers give.

A dual-era client probes with ``server/discover`` and falls back to ``initialize`` on anything that is not
a recognized modern answer (2026-07-28 basic/transports/stdio.mdx §Backward Compatibility; basic/transports/
streamable-http.mdx §Backward Compatibility; basic/versioning.mdx §Backward Compatibility with
Initialization-Based Versions). The bridge is that client. ``EVIDENCE`` is the table of signals; a verdict
is kept as plain data (``ProbeState``) so a later signal can overturn it: the fallback "MUST NOT be keyed to
one specific error code", and the era is cached but re-probed "if the cached assumption later fails".

Signals that are not evidence (credentials refused, the server unreachable, the child not ready yet)
never make a verdict: they are reported as errors and the probe runs again later.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mcp_eras.bridge.translate import eras, errors
from mcp_eras.bridge.translate.legacy_server import frames as tx

Signal = Literal[
    "discover-result-modern",
    "discover-result-legacy-only",
    "modern-error",
    "http-404-method-not-found",
    "unauthorized",
    "unreachable",
    "other-error",
    "no-answer",
    "initialize-result",
    "initialize-result-modern",
    "initialize-refused-modern",
    "initialize-unknown-after-silence",
]
Evidence = Literal["modern", "legacy", "none"]


@dataclass(frozen=True)
class Row:
    evidence: Evidence
    final: bool
    """A final verdict is not overturned by the answers that follow; a provisional one can be."""
    spec: str


EVIDENCE: dict[str, Row] = {
    "discover-result-modern": Row("modern", True, "2026-07-28 basic/transports/stdio.mdx §Backward Compatibility "
                                               "(a DiscoverResult: the server is modern)"),
    "discover-result-legacy-only": Row("legacy", False, "2026-07-28 server/discover.mdx §DiscoverResult (no mutually "
                                                        "supported modern version in supportedVersions)"),
    "modern-error": Row("modern", True, "2026-07-28 basic/transports/stdio.mdx §Backward Compatibility (a recognized "
                                        "modern error: do not fall back); basic/index.mdx §Error Codes (-32020..-32022)"),
    "http-404-method-not-found": Row("modern", True, "2026-07-28 basic/transports/streamable-http.mdx §Protocol Version "
                                                     "Header (404 with a -32601 body, unlike a legacy server's bare 404)"),
    "unauthorized": Row("none", False, "2026-07-28 basic/authorization/index.mdx (401/403 answer the credentials, "
                                       "not the protocol)"),
    "unreachable": Row("none", False, "an outage says nothing about the protocol (retry later)"),
    "other-error": Row("legacy", False, "2026-07-28 basic/transports/stdio.mdx §Backward Compatibility (any other "
                                        "error: legacy); streamable-http.mdx §Backward Compatibility (4xx without a "
                                        "recognized modern body)"),
    "no-answer": Row("legacy", False, "2026-07-28 basic/transports/stdio.mdx §Backward Compatibility (no answer within "
                                      "a reasonable timeout, measured from the child's readiness)"),
    "initialize-result": Row("legacy", True, "2025-11-25 basic/lifecycle.mdx §Initialization (the handshake succeeded)"),
    "initialize-result-modern": Row("modern", True, "2026-07-28 basic/versioning.mdx §Backward Compatibility with "
                                                    "Initialization-Based Versions (an initialize answer that "
                                                    "negotiates a 2026 version: the server speaks 2026)"),
    "initialize-unknown-after-silence": Row("modern", False, "2025-11-25 basic/lifecycle.mdx §Initialization (every "
                                                             "2025 server answers initialize: one that does not know "
                                                             "the method, after leaving server/discover unanswered, is "
                                                             "not a 2025 server)"),
    "initialize-refused-modern": Row("modern", True, "2026-07-28 basic/versioning.mdx §Backward Compatibility with "
                                                     "Initialization-Based Versions (a modern-only server names its "
                                                     "versions in its error to initialize; re-probe when the cached "
                                                     "assumption fails)"),
}


def discover_signal(status: int | None, body: Any) -> Signal:
    """The signal of one ``server/discover`` answer (``status``: the HTTP status, None on stdio)."""
    if status in errors.UNAUTHORIZED_STATUSES:
        return "unauthorized"
    if isinstance(body, dict):
        result = body.get("result")
        if isinstance(result, dict) and isinstance(result.get("supportedVersions"), list):
            modern = any(v in eras.MODERN_VERSIONS for v in result["supportedVersions"])
            return "discover-result-modern" if modern else "discover-result-legacy-only"
        err = body.get("error")
        if isinstance(err, dict):
            code = err.get("code")
            if code in errors.MODERN_DEFINED_CODES:
                return "modern-error"
            if code == errors.METHOD_NOT_FOUND and status == 404:
                return "http-404-method-not-found"
    return "other-error"


def initialize_signal(response: Any) -> Signal:
    """The signal of the answer to the ``initialize`` sent after a legacy verdict: a refusal is modern when it
    carries a 2026 error code (-32020..-32022), or when any error's ``data.supported`` names a 2026 version, and in
    either case names no 2025 version the handshake could use instead."""
    if isinstance(response, dict) and isinstance(response.get("result"), dict):
        modern = response["result"].get("protocolVersion") in eras.MODERN_VERSIONS
        return "initialize-result-modern" if modern else "initialize-result"
    err = response.get("error") if isinstance(response, dict) else None
    if isinstance(err, dict):
        data = err.get("data")
        supported = data.get("supported") if isinstance(data, dict) else None
        listed = supported if isinstance(supported, list) else []
        if not any(v in eras.LEGACY_VERSIONS for v in listed) and (
                err.get("code") in errors.MODERN_DEFINED_CODES or any(v in eras.MODERN_VERSIONS for v in listed)):
            return "initialize-refused-modern"
    return "other-error"


def verdict_after_silence(initialize_answer: Any | None) -> eras.Era:
    """The era of a server that left ``server/discover`` unanswered within the probe timeout, given its answer to
    the confirming ``initialize`` (None: no answer to that either). Silence alone is a provisional legacy verdict
    (2026-07-28 basic/transports/stdio.mdx §Backward Compatibility); a loaded 2026 server is merely slow, and its
    answer to ``initialize`` overturns it (basic/versioning.mdx §Backward Compatibility with Initialization-Based
    Versions): a refusal naming 2026, a result negotiating 2026, or "method not found" (no 2025 server lacks
    ``initialize``)."""
    state = ProbeState()
    observe(state, "no-answer")
    if initialize_answer is not None:
        signal = initialize_signal(initialize_answer)
        err = initialize_answer.get("error") if isinstance(initialize_answer, dict) else None
        if signal == "other-error" and isinstance(err, dict) and err.get("code") == errors.METHOD_NOT_FOUND:
            signal = "initialize-unknown-after-silence"
        observe(state, signal)
    assert state.era is not None
    return state.era


def classify_discover_answer(status: int | None, body: Any) -> eras.Era | None:
    """The era one ``server/discover`` answer points to (None: no evidence either way)."""
    evidence = EVIDENCE[discover_signal(status, body)].evidence
    return None if evidence == "none" else (eras.MODERN if evidence == "modern" else eras.LEGACY)


@dataclass
class ProbeState:
    """The evidence so far about one upstream; JSON-serializable."""

    era: eras.Era | None = None
    final: bool = False
    signals: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProbeState:
        return cls(**data)


def observe(state: ProbeState, signal: Signal) -> bool:
    """Record a signal; True when the verdict changed (the shell then re-builds its delegate)."""
    state.signals.append(signal)
    del state.signals[:-8]
    row = EVIDENCE[signal]
    if row.evidence == "none" or (state.final and not row.final):
        return False
    era: eras.Era = eras.MODERN if row.evidence == "modern" else eras.LEGACY
    changed = era != state.era
    state.era, state.final = era, row.final or (state.final and not changed)
    return changed


def discover_deadline(ready_at: float, probe_timeout: float) -> float:
    """When silence becomes "no-answer": ``probe_timeout`` after the child is ready (its first output, or the
    moment it was spawned when it prints nothing), never counted from a spawn that is still loading."""
    return ready_at + probe_timeout


def needs_confirmation(state: ProbeState) -> bool:
    """A provisional legacy verdict (a refused or unanswered ``server/discover``) is confirmed with ``initialize``
    on the same child before it stands: 2026-07-28 basic/transports/stdio.mdx §Backward Compatibility (fall back to
    ``initialize``) and basic/versioning.mdx §Backward Compatibility with Initialization-Based Versions (the fallback
    MUST NOT rest on a single signal)."""
    return state.era == eras.LEGACY and not state.final


def confirm_params(first_request: Any, bridge_info: dict[str, str]) -> dict[str, Any]:
    """The ``initialize`` params of the confirmation: exactly what the first caller's own 2025 session sends (its
    capabilities and clientInfo from the request ``_meta``; the bridge's info when it has none), so that session is
    the confirmed child (one spawn). 2025-11-25 basic/lifecycle.mdx §Initialization fixes both for the session."""
    request = first_request if isinstance(first_request, dict) else {}
    info = tx.client_info(request)
    client_info = {"name": str(info.get("name")), "version": str(info.get("version", "0"))} if info else dict(bridge_info)
    return tx.initialize_params(tx.client_capabilities(request), client_info)


def handshake_serves(probe_params: Any, session_params: Any) -> bool:
    """Whether a child confirmed with ``probe_params`` can be the session that would send ``session_params``: a
    2025 server is initialized once per connection (2025-11-25 basic/lifecycle.mdx §Initialization), so only the
    same capabilities and clientInfo may reuse it; any other session needs its own child."""
    return isinstance(probe_params, dict) and probe_params == session_params

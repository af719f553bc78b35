"""Baseline legs: the harness straight against the SDK everything servers, no bridge.

They prove the harness, the runner and the verdict parsing before any bridge leg is believed:
mcp 2.3.0's server is clean on both wires; mcp 1.29.0's is clean at 2025-11-25 except the one
scenario whose fixture tool it does not ship, and fails nearly everything on the 2026 wire.
"""

from __future__ import annotations

import harness
import pytest
from suites import INPUT_REQUIRED, SUITE_2025, SUITE_2026

import peers

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(600)]

MODERN = "2.3.0"
LEGACY = "1.29.0"


def modern_everything(port: int) -> tuple[list[str], dict[str, str]]:
    src = harness.everything_server(MODERN)
    cmd = [peers.MODERN_PYTHON, "-m", "mcp_everything_server", "--port", str(port), "--log-level", "WARNING"]
    return cmd, harness.with_pythonpath(src)


def legacy_everything(port: int) -> tuple[list[str], dict[str, str]]:
    src = harness.everything_server(LEGACY)
    cmd = [peers.legacy_python(), "-m", "mcp_everything_server", "--port", str(port), "--log-level", "WARNING"]
    return cmd, harness.with_pythonpath(src)


@pytest.mark.parametrize("spec, suite", [("2026-07-28", SUITE_2026), ("2025-11-25", SUITE_2025)])
def test_modern_everything_server(spec: str, suite: frozenset[str]) -> None:
    port = peers.free_port()
    cmd, env = modern_everything(port)
    with harness.serving(cmd, port, env) as url:
        leg = harness.run_leg(url, spec, label=f"mcp 2.3.0 everything server, {spec}")
    harness.assert_leg(leg, set(suite), {})


LEGACY_2025_FAILURES = {
    "json-schema-2020-12": harness.fails("mcp 1.29.0's everything server has no tool 'json_schema_2020_12_tool'",
                                         "json-schema-2020-12-tool-found"),
}


@pytest.mark.legacy_peer
def test_legacy_everything_server_2025() -> None:
    port = peers.free_port()
    cmd, env = legacy_everything(port)
    with harness.serving(cmd, port, env) as url:
        leg = harness.run_leg(url, "2025-11-25", label="mcp 1.29.0 everything server, 2025-11-25")
    harness.assert_leg(leg, set(SUITE_2025) - set(LEGACY_2025_FAILURES), LEGACY_2025_FAILURES)


# Straight on the 2026 wire a 2025 server fails almost everything: this is what the bridge fixes.
# The five clean ones pass only vacuously (the scenario tolerates an error answer, or only warns).
LEGACY_2026_CLEAN = {
    "sep-2164-resource-not-found",  # a JSON-RPC error for an unknown URI is what it wants anyway
    "input-required-result-missing-input-response",  # WARNING-only check
    "input-required-result-unsupported-methods",  # tools/list and prompts/list are not input_required
    "input-required-result-ignore-extra-params",  # WARNING-only check
    "input-required-result-validate-input",  # WARNING-only checks
}
_NO_2026 = "a 2025-11-25 server rejects sessionless 2026-07-28 requests: HTTP 400 'Bad Request: Missing session ID'"
LEGACY_2026_FAILURES = {name: _NO_2026 for name in SUITE_2026 - LEGACY_2026_CLEAN}


@pytest.mark.legacy_peer
def test_legacy_everything_server_2026_without_bridge() -> None:
    assert LEGACY_2026_CLEAN - SUITE_2026 == set() and len(LEGACY_2026_CLEAN & INPUT_REQUIRED) == 4
    port = peers.free_port()
    cmd, env = legacy_everything(port)
    with harness.serving(cmd, port, env) as url:
        leg = harness.run_leg(url, "2026-07-28", label="mcp 1.29.0 everything server, 2026-07-28, no bridge")
    harness.assert_leg(leg, LEGACY_2026_CLEAN, LEGACY_2026_FAILURES)

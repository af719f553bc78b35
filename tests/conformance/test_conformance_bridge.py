"""Bridge legs: the conformance harness against ``python -m mcp_eras.bridge serve`` in front of real servers.

Direction A (2026-07-28 client -> 2025-11-25 server):
  A1  2026-07-28 suite -> bridge -> mcp 1.29.0 everything server over Streamable HTTP
  A2  the same, the everything server run by the bridge as a stdio child
  A3  the 14 input-required scenarios -> bridge -> samples/conformance/legacy_input_required_server.py
      (over HTTP, and as the bridge's stdio child)
Direction B (2025-11-25 client -> 2026-07-28 server):
  B1  2025-11-25 suite -> bridge (--front-era 2025-11-25 --upstream-era 2026-07-28) -> mcp 2.3.0 everything server
  B2  the 4 elicitation/sampling scenarios @ 2025-11-25 -> bridge -> samples/conformance/modern_elicitation_server.py

Each leg asserts the exact set of clean scenarios; every scenario expected to fail is listed with its reason.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import harness
import pytest
from suites import INPUT_REQUESTS_2025, INPUT_REQUIRED, SUITE_2025, SUITE_2026

import peers

pytestmark = [pytest.mark.conformance, pytest.mark.timeout(900)]

LEGACY_FIXTURE = peers.ROOT / "samples" / "conformance" / "legacy_input_required_server.py"
MODERN_FIXTURE = peers.ROOT / "samples" / "conformance" / "modern_elicitation_server.py"
SCENARIO_TIMEOUT = ["--timeout", "20000"]  # ms per scenario (harness default 30000): a hung leg ends sooner


@contextlib.contextmanager
def bridge(*, upstream: str | None = None, child: list[str] | None = None, upstream_era: str = "auto",
           front_era: str = "auto") -> Iterator[str]:
    """Run ``python -m mcp_eras.bridge serve`` on a free port in front of ``upstream`` (URL) or ``child`` (stdio)."""
    port = peers.free_port()
    cmd = [*peers.bridge_cmd(), "serve", "--listen", f"127.0.0.1:{port}", "--upstream-era", upstream_era,
           "--front-era", front_era]
    if upstream is not None:
        cmd += ["--upstream", upstream]
    if child is not None:
        cmd += ["--", *child]
    with harness.serving(cmd, port) as url:
        yield url


@contextlib.contextmanager
def legacy_everything_http() -> Iterator[str]:
    port = peers.free_port()
    src = harness.everything_server("1.29.0")
    cmd = [peers.legacy_python(), "-m", "mcp_everything_server", "--port", str(port), "--log-level", "WARNING"]
    with harness.serving(cmd, port, harness.with_pythonpath(src)) as url:
        yield url


def legacy_everything_stdio() -> list[str]:
    """The 1.29.0 everything server on stdio: its CLI only serves HTTP, its FastMCP object runs on stdio."""
    src = harness.everything_server("1.29.0")
    code = (f"import sys; sys.path.insert(0, {str(src)!r}); "
            "from mcp_everything_server.server import mcp; mcp.run('stdio')")
    return [peers.legacy_python(), "-c", code]


@contextlib.contextmanager
def served(cmd: list[str], env: dict[str, str] | None = None) -> Iterator[str]:
    port = peers.free_port()
    with harness.serving([*cmd, "--port", str(port)], port, env) as url:
        yield url


def modern_everything_cmd() -> tuple[list[str], dict[str, str]]:
    src = harness.everything_server("2.3.0")
    return [peers.MODERN_PYTHON, "-m", "mcp_everything_server", "--log-level", "WARNING"], harness.with_pythonpath(src)


# --- A1 / A2: 2026-07-28 suite -> bridge -> mcp 1.29.0 everything server --------------------------------

_NO_TOOL = "mcp 1.29.0's everything server has no {what}: the bridge relays its 'Unknown tool' answer (covered by A3)"
_MISSING_MRTR_TOOL = _NO_TOOL.format(what="test_input_required_result_* tools")

A_FAILURES: dict[str, str | harness.Fails] = {
    "json-schema-2020-12": harness.fails(
        "mcp 1.29.0's everything server has no tool json_schema_2020_12_tool", "json-schema-2020-12-tool-found"),
    "http-custom-header-server-validation": harness.fails(
        "mcp 1.29.0's everything server has no tool with x-mcp-header annotations (2.3.0's test_x_mcp_header): "
        "the harness reports every SEP-2243 custom-header check as 'Not testable' FAILURE",
        "sep-2243-server-no-xmcp-tool", "sep-2243-server-decode-base64", "sep-2243-server-validate-param-match",
        "sep-2243-server-reject-invalid-param-chars", "sep-2243-server-reject-param-mismatch"),
    "server-stateless": harness.fails(
        "two checks need the diagnostic tool test_missing_capability, which mcp 1.29.0's everything server lacks "
        "(rejects-undeclared-capability, missing-capability-http-400); "
        "no-independent-requests-on-stream may time out (see below)",
        "sep-2575-server-rejects-undeclared-capability", "sep-2575-missing-capability-http-400",
        # The harness gives this call 600 ms. It is the run's first request declaring only {elicitation: {}}, a
        # new upstream pool key: the bridge opens a new legacy session (over stdio a new child process) first,
        # which on a loaded 2-core box can take longer. (The tool, test_streaming_elicitation, is missing on
        # 1.29.0 anyway: when in time, the 'Unknown tool' result passes the check.)
        flaky=("sep-2575-http-server-no-independent-requests-on-stream",)),
    **{scenario: harness.fails(_MISSING_MRTR_TOOL, check) for scenario, check in {
        "input-required-result-basic-elicitation": "sep-2322-elicitation-incomplete",
        "input-required-result-basic-sampling": "sep-2322-sampling-incomplete",
        "input-required-result-basic-list-roots": "sep-2322-list-roots-incomplete",
        "input-required-result-request-state": "sep-2322-request-state-incomplete",
        "input-required-result-multiple-input-requests": "sep-2322-multiple-inputs-incomplete",
        "input-required-result-multi-round": "sep-2322-multi-round-r1",
        "input-required-result-result-type": "sep-2322-result-type-included",
        "input-required-result-tampered-state": "sep-2322-reject-tampered-state",
        "input-required-result-capability-check": "sep-2322-respect-client-capabilities",
    }.items()},
    "input-required-result-non-tool-request": harness.fails(
        "mcp 1.29.0's everything server has no prompt test_input_required_result_prompt (covered by A3)",
        "sep-2322-non-tool-incomplete"),
}
A_CLEAN = set(SUITE_2026) - set(A_FAILURES)


@pytest.mark.legacy_peer
def test_a1_modern_suite_through_bridge_to_legacy_everything_http() -> None:
    with legacy_everything_http() as upstream, bridge(upstream=upstream, upstream_era="2025-11-25") as url:
        leg = harness.run_leg(url, "2026-07-28", label="A1 2026 suite -> bridge -> mcp 1.29.0 everything (HTTP)",
                              extra_args=SCENARIO_TIMEOUT)
    harness.assert_leg(leg, A_CLEAN, A_FAILURES)


@pytest.mark.legacy_peer
def test_a2_modern_suite_through_bridge_to_legacy_everything_stdio() -> None:
    with bridge(child=legacy_everything_stdio(), upstream_era="2025-11-25") as url:
        leg = harness.run_leg(url, "2026-07-28", label="A2 2026 suite -> bridge -> mcp 1.29.0 everything (stdio)",
                              extra_args=SCENARIO_TIMEOUT)
    harness.assert_leg(leg, A_CLEAN, A_FAILURES)


# --- A3: input-required scenarios -> bridge -> legacy fixture ---------------------------------------------

A3_FAILURES = {
    "input-required-result-basic-elicitation": harness.fails(
        "the scenario wants the input key literally 'user_name'; the key of a parked 2025 server request is "
        "minted by the bridge (a 2025 server has no way to name it)", "sep-2322-elicitation-incomplete"),
}


@contextlib.contextmanager
def bridge_to_legacy_fixture(transport: str) -> Iterator[str]:
    fixture = [peers.legacy_python(), str(LEGACY_FIXTURE)]
    if transport == "stdio":
        with bridge(child=[*fixture, "--stdio"], upstream_era="2025-11-25") as url:
            yield url
        return
    with served(fixture) as upstream, bridge(upstream=upstream, upstream_era="2025-11-25") as url:
        yield url


@pytest.mark.legacy_peer
@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_a3_input_required_through_bridge_to_legacy_fixture(transport: str) -> None:
    with bridge_to_legacy_fixture(transport) as url:
        leg = harness.run_leg(url, "2026-07-28", label=f"A3 input-required -> bridge -> legacy fixture ({transport})",
                              scenarios=sorted(INPUT_REQUIRED), extra_args=SCENARIO_TIMEOUT)
    harness.assert_leg(leg, set(INPUT_REQUIRED) - set(A3_FAILURES), A3_FAILURES)


# --- B1: 2025-11-25 suite -> bridge -> mcp 2.3.0 everything server ----------------------------------------

_NO_BACK_CHANNEL = ("mcp 2.3.0's everything server asks with ctx.session.create_message / ctx.elicit, which on the "
                    "2026 wire raise 'no back-channel for server-initiated requests' (the tool returns that text): "
                    "there is no input_required for the bridge to turn into a request (covered by B2)")
B1_FAILURES: dict[str, str | harness.Fails] = {
    "tools-call-sampling": harness.fails(_NO_BACK_CHANNEL, "tools-call-sampling"),
    "tools-call-elicitation": harness.fails(_NO_BACK_CHANNEL, "tools-call-elicitation"),
    "elicitation-sep1034-defaults": harness.fails(_NO_BACK_CHANNEL, "elicitation-sep1034-general"),
    "elicitation-sep1330-enums": harness.fails(_NO_BACK_CHANNEL, "elicitation-sep1330-general"),
}
B1_CLEAN = set(SUITE_2025) - set(B1_FAILURES)


def test_b1_legacy_suite_through_bridge_to_modern_everything() -> None:
    cmd, env = modern_everything_cmd()
    with served(cmd, env) as upstream, bridge(upstream=upstream, front_era="2025-11-25",
                                              upstream_era="2026-07-28") as url:
        leg = harness.run_leg(url, "2025-11-25", label="B1 2025 suite -> bridge -> mcp 2.3.0 everything",
                              extra_args=SCENARIO_TIMEOUT)
    harness.assert_leg(leg, B1_CLEAN, B1_FAILURES)


# --- B2: 2025 elicitation/sampling scenarios -> bridge -> modern fixture -----------------------------------


def test_b2_input_requests_through_bridge_to_modern_fixture() -> None:
    with served([peers.MODERN_PYTHON, str(MODERN_FIXTURE)]) as upstream, \
            bridge(upstream=upstream, front_era="2025-11-25", upstream_era="2026-07-28") as url:
        leg = harness.run_leg(url, "2025-11-25", label="B2 2025 input requests -> bridge -> modern fixture",
                              scenarios=sorted(INPUT_REQUESTS_2025), extra_args=SCENARIO_TIMEOUT)
    harness.assert_leg(leg, set(INPUT_REQUESTS_2025), {})

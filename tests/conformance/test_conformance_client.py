"""The official harness in client mode, a client of one era through ``mcp-bridge serve --stdio`` (issue #35):

  leg A  a 2026-07-28 client (mcp 2.3.0)  -> bridge -> the harness's 2025-11-25 mock  (5 core + 14 auth scenarios)
  leg B  a 2025-11-25 client (mcp 1.29.0) -> bridge -> the harness's 2026-07-28 mock  (8 core + 25 auth scenarios)

Every non-extension scenario of both legs runs once, all of them at the same time on a bounded pool of workers
(``MCP_ERAS_CONFORMANCE_WORKERS``, default 4), at the bridge's default probe timeout. A scenario is clean when the
harness's own verdict is PASSED (see client_harness.py). Each scenario is reported as its own test.

The ``auth/*`` scenarios have the bridge sign in to its upstream as an OAuth client (``mcp_eras.bridge.auth``): every
one of them, and every core scenario, must pass.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import client_harness as ch
import pytest
from suites import CLIENT_AUTH_2025, CLIENT_AUTH_2026, CLIENT_CORE_2025, CLIENT_CORE_2026

pytestmark = [pytest.mark.conformance, pytest.mark.legacy_peer, pytest.mark.timeout(1200)]

LEGS = {
    # leg: (the client's era, the mock's revision, core scenarios, auth scenarios)
    "A": (ch.MODERN, ch.LEGACY, CLIENT_CORE_2025, CLIENT_AUTH_2025),
    "B": (ch.LEGACY, ch.MODERN, CLIENT_CORE_2026, CLIENT_AUTH_2026),
}


def _cases() -> list[object]:
    cases: list[object] = []
    for leg, (_era, _spec, core, auth) in LEGS.items():
        cases += [pytest.param(leg, s, id=f"{leg}-{s}") for s in sorted(core | auth)]
    return cases


@pytest.fixture(scope="module")
def results() -> Iterator[dict[tuple[str, str], ch.ClientRun]]:
    out = Path(tempfile.mkdtemp(prefix="conformance-client-"))
    jobs = [job for leg, (era, spec, core, auth) in LEGS.items()
            for job in ch.scenario_jobs(leg, era, spec, sorted(core | auth))]
    try:
        yield ch.run_all(jobs, out)
    finally:
        shutil.rmtree(out, ignore_errors=True)


@pytest.mark.parametrize("leg", sorted(LEGS))
def test_the_scenario_lists_match_the_harness(leg: str) -> None:
    _era, spec, core, auth = LEGS[leg]
    assert ch.listed_client_scenarios(spec) == set(core | auth)


@pytest.mark.parametrize("leg,scenario", _cases())
def test_scenario(results: dict[tuple[str, str], ch.ClientRun], leg: str, scenario: str) -> None:
    run = results[(leg, scenario)]
    assert run.clean, f"{run.line()}\n--- harness output (end) ---\n{run.tail}"
    assert run.passed > 0, f"{run.line()}: no check succeeded (a vacuous pass)"

"""The official harness in client mode: one ``conformance client --scenario S`` process per scenario, many at once.

Each run starts the harness's mock server for the scenario at the leg's revision and runs the client command
(``client_driver.py`` of the other era) against it; the harness writes ``checks.json``, ``stdout.txt`` and
``stderr.txt`` into its output folder and exits 0 exactly when its own verdict is PASSED (no FAILURE and no
WARNING check, the client neither timed out nor exited with an error unless the scenario allows that). That exit
status is the verdict here; the failing and warning checks are kept for the report.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import harness

import peers

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "run-harness.sh"
DRIVER = HERE / "client_driver.py"
MODERN, LEGACY = "2026-07-28", "2025-11-25"
SCENARIO_TIMEOUT_MS = 60000  # twice the harness default: on a loaded 2-core box a clean scenario took up to 21 s
WORKERS = int(os.environ.get("MCP_ERAS_CONFORMANCE_WORKERS", "4"))


@dataclass
class ClientRun:
    """One scenario of one leg."""

    leg: str
    scenario: str
    exit_code: int
    wall_seconds: float
    failures: list[str] = field(default_factory=list)  # "check-id: message"
    warnings: list[str] = field(default_factory=list)
    passed: int = 0
    tail: str = ""  # the end of the harness's own output (its verdict, the client's stderr)

    @property
    def clean(self) -> bool:
        return self.exit_code == 0

    def line(self) -> str:
        verdict = "clean" if self.clean else f"FAILED (harness exit {self.exit_code})"
        extra = "".join(f"\n      FAILURE {f[:300]}" for f in self.failures)
        extra += "".join(f"\n      WARNING {w[:300]}" for w in self.warnings)
        return f"  [{self.leg}] {self.scenario:<42} {verdict}, {self.passed} passed, {self.wall_seconds:.1f}s{extra}"


@cache
def harness_paths() -> tuple[str, str]:
    """The Node >= 22 binary and the pinned harness's entry point (installed by run-harness.sh once)."""
    proc = subprocess.run(["bash", str(RUNNER), "--print-paths"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or len(lines) != 2:
        raise RuntimeError(f"conformance harness setup failed (exit {proc.returncode}): {proc.stdout[-500:]}"
                           f"{proc.stderr[-1500:]}")
    return lines[0], lines[1]


def driver_command(era: str) -> str:
    """The client command the harness runs (it splits it on spaces and appends the mock's URL)."""
    python = peers.MODERN_PYTHON if era == MODERN else peers.legacy_python()
    parts = [str(python), str(DRIVER), "--era", era, "--bridge-python", str(peers.MODERN_PYTHON)]
    if any(" " in p for p in parts):
        raise RuntimeError(f"the harness splits its client command on spaces; a path has one: {parts}")
    return " ".join(parts)


def _read(outdir: Path, run: ClientRun) -> None:
    """Tally the checks of the run's one result folder (``auth/*`` scenarios nest it one level deeper)."""
    for folder in {checks.parent.parent for checks in outdir.rglob("checks.json")}:
        for scenario in harness.read_checks(folder).values():
            run.passed += scenario.passed
            run.failures += scenario.failures
            run.warnings += scenario.warnings


def run_scenario(leg: str, client_era: str, spec: str, scenario: str, outdir: Path,
                 timeout_ms: int = SCENARIO_TIMEOUT_MS) -> ClientRun:
    node, entry = harness_paths()
    outdir.mkdir(parents=True, exist_ok=True)
    cmd = [node, entry, "client", "--command", driver_command(client_era), "--scenario", scenario,
           "--spec-version", spec, "--timeout", str(timeout_ms), "-o", str(outdir)]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=timeout_ms / 1000 + 60, cwd=peers.ROOT)
        code, output = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, output = -1, f"harness did not finish: {exc}"
    run = ClientRun(leg, scenario, code, time.monotonic() - start, tail=output[-3000:])
    _read(outdir, run)
    return run


def run_all(jobs: Iterable[tuple[str, str, str, str]], outdir: Path, workers: int = WORKERS) -> dict[tuple[str, str], ClientRun]:
    """Run ``(leg, client_era, spec, scenario)`` jobs on ``workers`` threads; print one line per run to stderr."""
    jobs = list(jobs)

    def one(job: tuple[str, str, str, str]) -> ClientRun:
        leg, era, spec, scenario = job
        return run_scenario(leg, era, spec, scenario, outdir / leg / scenario.replace("/", "_"))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        runs = list(pool.map(one, jobs))
    results = {(r.leg, r.scenario): r for r in runs}
    print("\n".join(r.line() for r in sorted(runs, key=lambda r: (r.leg, r.scenario))), file=sys.stderr, flush=True)
    return results


def listed_client_scenarios(spec: str) -> set[str]:
    """``conformance list --client --spec-version spec`` without the extension scenarios."""
    node, entry = harness_paths()
    proc = subprocess.run([node, entry, "list", "--client", "--spec-version", spec], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, check=True)
    names: set[str] = set()
    for line in proc.stdout.splitlines():
        line = line.strip()
        if line.startswith("- ") and "[extension]" not in line:
            names.add(line[2:].split(" [", 1)[0])
    return names


def scenario_jobs(leg: str, client_era: str, spec: str, scenarios: Sequence[str]) -> list[tuple[str, str, str, str]]:
    return [(leg, client_era, spec, s) for s in sorted(scenarios)]

"""Run one conformance leg (the official MCP harness in server mode) and judge it per scenario.

A leg is: a server command (or a bridge in front of one) listening on a local port, the harness
run against its ``/mcp`` URL for one spec version with ``--suite all`` (or a list of scenarios),
and a verdict per scenario read from the ``checks.json`` file the harness writes into one folder
per scenario. A scenario is *clean* when none of its checks has status ``FAILURE`` (WARNING and
INFO checks do not make it dirty: the harness itself does not count them as failures).

The passed-check total alone proves little (each scenario carries a wire-schema check that passes
even when the server says nothing), so the legs assert the exact set of clean scenarios and the
exact set of expected failures, each with its reason.

The SDK "everything" servers are not part of this repository: :func:`everything_server` fetches
the PyPI sdist of the wanted ``mcp`` version into the git-ignored ``.cache/`` and extracts only
``examples/servers/everything-server/`` from it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import peers

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "run-harness.sh"
CACHE = peers.ROOT / ".cache" / "conformance"
SDISTS = CACHE / "sdists"

CLEAN = "clean"
FAILED = "failed"

# Folder names are "server-<scenario>-<ISO timestamp with ':' and '.' replaced by '-'>".
_FOLDER = re.compile(r"^server-(?P<name>.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")
_COUNTS = re.compile(r"^(\d+) passed, (\d+) failed$")


@dataclass
class Scenario:
    """The verdict on one scenario folder of a leg."""

    name: str
    status: str  # CLEAN or FAILED
    passed: int = 0
    failures: list[str] = field(default_factory=list)  # "check-id: errorMessage"
    warnings: list[str] = field(default_factory=list)

    @property
    def failed_checks(self) -> list[str]:
        return [f.split(":", 1)[0] for f in self.failures]


@dataclass
class Leg:
    """The outcome of one harness run."""

    label: str
    scenarios: dict[str, Scenario]
    wall_seconds: float
    counts_line: str
    outdir: Path

    @property
    def clean(self) -> set[str]:
        return {n for n, s in self.scenarios.items() if s.status == CLEAN}

    @property
    def dirty(self) -> set[str]:
        return {n for n, s in self.scenarios.items() if s.status == FAILED}

    @property
    def vacuous(self) -> set[str]:
        """Clean scenarios in which not one check succeeded (everything was INFO / SKIPPED / not applicable)."""
        return {n for n, s in self.scenarios.items() if s.status == CLEAN and s.passed == 0}

    def table(self) -> str:
        width = max((len(n) for n in self.scenarios), default=10)
        lines = [f"== conformance leg {self.label}: {len(self.clean)}/{len(self.scenarios)} scenarios clean, "
                 f"{self.counts_line}, {self.wall_seconds:.1f}s wall"]
        for name in sorted(self.scenarios):
            s = self.scenarios[name]
            status = "VACUOUS" if s.status == CLEAN and s.passed == 0 else s.status
            lines.append(f"  {name:<{width}}  {status:<7}  {s.passed} passed"
                         + (f", {len(s.warnings)} warning" if s.warnings else ""))
            for failure in s.failures:
                lines.append(f"      FAILURE {failure[:300]}")
        return "\n".join(lines)


def read_checks(outdir: Path) -> dict[str, Scenario]:
    """Read every ``<scenario folder>/checks.json`` under ``outdir`` into a verdict per scenario."""
    result: dict[str, Scenario] = {}
    for checks in sorted(outdir.glob("*/checks.json")):
        match = _FOLDER.match(checks.parent.name)
        name = match.group("name") if match else checks.parent.name
        if name in result:
            raise RuntimeError(f"scenario {name} appears twice in {outdir}")
        scenario = Scenario(name=name, status=CLEAN)
        for check in json.loads(checks.read_text()):
            status = check.get("status")
            what = f"{check.get('id')}: {check.get('errorMessage') or check.get('description', '')}"
            if status == "SUCCESS":
                scenario.passed += 1
            elif status == "FAILURE":
                scenario.failures.append(what)
            elif status == "WARNING":
                scenario.warnings.append(what)
        if scenario.failures:
            scenario.status = FAILED
        result[name] = scenario
    return result


def run_leg(url: str, spec: str, *, label: str | None = None, scenarios: Sequence[str] = (),
            extra_args: Sequence[str] = (), outdir: Path | None = None, timeout: float = 600.0,
            retry_timeouts: bool = True) -> Leg:
    """Run a leg; a scenario whose only failure is the harness's own ``scenario-timeout`` is run once
    more on its own (a loaded machine, not a verdict). A server that really hangs times out twice."""
    leg = _run_leg(url, spec, label=label, scenarios=scenarios, extra_args=extra_args, outdir=outdir, timeout=timeout)
    timed_out = sorted(n for n, sc in leg.scenarios.items() if sc.failed_checks == ["scenario-timeout"])
    if retry_timeouts and timed_out:
        print(f"retrying after scenario-timeout: {', '.join(timed_out)}", file=sys.stderr, flush=True)
        again = _run_leg(url, spec, label=f"{leg.label} (retry)", scenarios=timed_out, extra_args=extra_args,
                         timeout=timeout)
        leg.scenarios.update({n: again.scenarios[n] for n in timed_out if n in again.scenarios})
        leg.counts_line += f"; {len(timed_out)} timed-out scenario(s) re-run: {again.counts_line}"
    return leg


def _run_leg(url: str, spec: str, *, label: str | None = None, scenarios: Sequence[str] = (),
             extra_args: Sequence[str] = (), outdir: Path | None = None, timeout: float = 600.0) -> Leg:
    """Run the harness against ``url`` at ``spec`` and return the per-scenario verdicts.

    With no ``scenarios`` the whole ``--suite all`` set for ``spec`` runs in one harness process;
    otherwise each named scenario runs on its own (``--scenario``), all into the same folder.
    The per-scenario table goes to stderr.
    """
    label = label or f"{spec} @ {url}"
    own_dir = outdir is None
    out = Path(tempfile.mkdtemp(prefix="conformance-")) if outdir is None else outdir
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CONFORMANCE_SUITE": "all"}
    runs: list[list[str]] = ([["--scenario", s] for s in scenarios] if scenarios else [[]])
    counts = [0, 0]
    start = time.monotonic()
    try:
        for args in runs:
            cmd = ["bash", str(RUNNER), url, spec, str(out), *args, *extra_args]
            proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=timeout)
            last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
            sys.stderr.write(proc.stderr)
            match = _COUNTS.match(last)
            if proc.returncode not in (0, 1) or not match:
                raise RuntimeError(f"harness setup error (exit {proc.returncode}) for {label}: {last!r}\n"
                                   f"{proc.stderr[-2000:]}")
            counts[0] += int(match.group(1))
            counts[1] += int(match.group(2))
        wall = time.monotonic() - start
        leg = Leg(label=label, scenarios=read_checks(out), wall_seconds=wall,
                  counts_line=f"{counts[0]} checks passed, {counts[1]} failed", outdir=out)
    finally:
        if own_dir and os.environ.get("MCP_ERAS_KEEP_CONFORMANCE") is None:
            shutil.rmtree(out, ignore_errors=True)
    print(leg.table(), file=sys.stderr, flush=True)
    return leg


@dataclass(frozen=True)
class Fails:
    """An expected failure: the scenario's failing check ids, exactly, and why they fail."""

    checks: frozenset[str]
    reason: str
    flaky: frozenset[str] = frozenset()  # checks that may fail or pass (timing), each explained in ``reason``


def fails(reason: str, *checks: str, flaky: tuple[str, ...] = ()) -> Fails:
    return Fails(frozenset(checks), reason, frozenset(flaky))


def assert_leg(leg: Leg, expected_clean: set[str], expected_failures: Mapping[str, str | Fails],
               vacuous: Mapping[str, str] | None = None) -> None:
    """The leg ran exactly ``expected_clean | expected_failures`` and exactly those were clean / dirty.

    A clean scenario in which no check succeeded proves nothing: those must be listed, with the reason,
    in ``vacuous`` (exactly: a listed one that starts passing checks asks for the list to shrink).

    ``expected_failures`` maps each scenario known to fail to the reason it fails, or to a :class:`Fails`
    that also pins the exact set of failing check ids (a new failing check in an already failing
    scenario is then a regression too, and a check that starts passing asks for the expectation to move).
    """
    overlap = expected_clean & set(expected_failures)
    assert not overlap, f"scenarios listed both as clean and as expected failures: {sorted(overlap)}"
    problems: list[str] = []
    ran = set(leg.scenarios)
    expected = expected_clean | set(expected_failures)
    if missing := expected - ran:
        problems.append(f"scenarios that did not run: {sorted(missing)}")
    if extra := ran - expected:
        problems.append(f"scenarios that ran but are not expected: {sorted(extra)}")
    if regressed := expected_clean & leg.dirty:
        problems.append(f"expected clean but failed: {sorted(regressed)}")
    if fixed := set(expected_failures) & leg.clean:
        problems.append(f"expected to fail but clean now (update the expectation): {sorted(fixed)}")
    vacuous = vacuous or {}
    if (got_vacuous := leg.vacuous) != set(vacuous):
        problems.append(f"clean without a single passed check: {sorted(got_vacuous)}, expected {sorted(vacuous)}")
    for name, expectation in sorted(expected_failures.items()):
        if isinstance(expectation, Fails) and name in leg.dirty:
            got = set(leg.scenarios[name].failed_checks) - expectation.flaky
            if got != expectation.checks:
                problems.append(f"{name}: failing checks {sorted(got)}, expected {sorted(expectation.checks)} "
                                f"(newly failing: {sorted(got - expectation.checks)}, "
                                f"now passing: {sorted(expectation.checks - got)})")
    assert not problems, "\n".join([*problems, leg.table()])


# --- the SDK everything servers, fetched from PyPI sdists at run time ------------------------------


def everything_server(version: str) -> Path:
    """Directory of ``examples/servers/everything-server`` from the PyPI sdist of ``mcp==version``.

    Downloaded once with pip into ``.cache/conformance/sdists`` and extracted next to it; put the
    returned directory on ``PYTHONPATH`` and run ``python -m mcp_everything_server --port N``.
    """
    target = SDISTS / f"everything-server-{version}"
    if (target / "mcp_everything_server" / "server.py").exists():
        return target
    SDISTS.mkdir(parents=True, exist_ok=True)
    sdist = SDISTS / f"mcp-{version}.tar.gz"
    if not sdist.exists():
        subprocess.run([peers.MODERN_PYTHON, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--no-binary", ":all:", f"mcp=={version}", "-d", str(SDISTS)],
                       check=True, stdin=subprocess.DEVNULL, stdout=sys.stderr)
    prefix = f"mcp-{version}/examples/servers/everything-server/"
    tmp = Path(tempfile.mkdtemp(prefix=".extract-", dir=SDISTS))
    try:
        with tarfile.open(sdist) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile()]
            if not members:
                raise RuntimeError(f"{sdist.name} has no {prefix}")
            for member in members:
                dest = tmp / member.name[len(prefix):]
                dest.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                dest.write_bytes(source.read())
        with contextlib.suppress(OSError):  # another run may have won the race
            tmp.rename(target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def with_pythonpath(path: Path, env: Mapping[str, str] | None = None) -> dict[str, str]:
    base = dict(env or {})
    old = base.get("PYTHONPATH", os.environ.get("PYTHONPATH", ""))
    base["PYTHONPATH"] = os.pathsep.join(p for p in (str(path), old) if p)
    return base


@contextlib.contextmanager
def serving(cmd: list[str], port: int, env: Mapping[str, str] | None = None,
            timeout: float = peers.STARTUP_TIMEOUT) -> Iterator[str]:
    """Run a server command, wait for its port, yield its ``/mcp`` URL, stop it afterwards."""
    with peers.running(cmd, port, env=dict(env or {}), timeout=timeout):
        yield f"http://127.0.0.1:{port}/mcp"

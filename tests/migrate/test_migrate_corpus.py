"""Acceptance 2: the v1 SDK's own examples (mcp==1.29.0 sdist), migrated and compared.

Every server example is introspected twice in subprocesses: the original under mcp 1.29.0
(.venvs/mcp1) and the migrated copy under mcp 2.3.0 (.venv). Tools (names + input schemas),
prompts (names + arguments), resources and resource templates must be identical. Examples that
do not even import under v1 (optional third-party packages missing) are not comparable; when the
migrated example only lacks a third-party package that its own manifest declares (an install
would bring it), that package is borrowed from the v1 environment and the example is compared.
Every remaining mismatch must carry a manual marker explaining it; the share needing no hand edit
is printed and written to .cache/migrate/corpus-report.txt.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from migrate_corpus import ROOT, examples_dir, server_examples

from peers import legacy_python

HERE = Path(__file__).resolve().parent
INTROSPECT = HERE / "migrate_introspect.py"
MISSING_RE = re.compile(r"No module named '([A-Za-z0-9_]+)")

pytestmark = [pytest.mark.legacy_peer, pytest.mark.slow, pytest.mark.timeout(1500)]  # the module fixture migrates 64 examples


def introspect(python: str, path: Path, overlay: Path | None = None) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(overlay)} if overlay else None
    proc = subprocess.run([python, str(INTROSPECT), str(path)], capture_output=True, text=True, timeout=120,
                          cwd=path.parent, env=env)
    lines = proc.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        return {"crash": proc.stderr[-800:]}


def legacy_site_packages() -> Path:
    out = subprocess.run([legacy_python(), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def with_declared_dependencies(path: Path, overlay: Path, first_missing: str) -> dict[str, Any]:
    """Re-introspect the migrated example with the third-party packages its manifest declares (and
    their own dependencies) made importable from the v1 environment, as an install would."""
    site = legacy_site_packages()
    missing = first_missing
    for _ in range(5):
        source = site / missing
        target = overlay / missing
        if missing.startswith("mcp") or not source.exists():
            break
        if not target.exists():
            target.symlink_to(source)
        result = introspect(sys.executable, path, overlay)
        found = MISSING_RE.search(result.get("import_error", ""))
        if not found or found.group(1) == missing:
            return result
        missing = found.group(1)
    return {"import_error": f"No module named '{first_missing}' (not installable from the v1 environment)"}


def manifest_declares(example: Path, module: str) -> bool:
    for parent in example.parents:
        manifest = parent / "pyproject.toml"
        if manifest.exists():
            text = manifest.read_text(encoding="utf-8").lower()
            return module.replace("_", "-") in text or module in text
    return False


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    pristine = examples_dir()
    copy = tmp_path_factory.mktemp("corpus") / "examples"
    shutil.copytree(pristine, copy)
    proc = subprocess.run(
        [sys.executable, "-m", "mcp_eras.migrate", str(copy), "--format", "json", "--allow-dirty", "--allow-no-vcs", "--jobs", "2"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return pristine, copy, json.loads(proc.stdout)


def test_corpus_examples_serve_the_same_surface(migrated: tuple[Path, Path, dict[str, Any]]) -> None:
    pristine, copy, report = migrated
    assert report["summary"]["files_changed"] > 40
    assert not [s for s in report["skipped"] if s["path"].endswith(".py")], report["skipped"]
    markers = {}
    for finding in report["findings"]:
        if finding["status"] == "manual":
            rel = Path(finding["path"]).relative_to(copy).as_posix()
            markers.setdefault(rel, set()).add(finding["rule"])
    examples = server_examples(pristine)
    assert len(examples) >= 60

    def one(path: Path) -> tuple[str, dict[str, Any], dict[str, Any]]:
        rel = path.relative_to(pristine)
        return rel.as_posix(), introspect(legacy_python(), path), introspect(sys.executable, copy / rel)

    with ThreadPoolExecutor(2) as pool:
        outcomes = list(pool.map(one, examples))

    passed, env_limited, not_comparable, failed = [], [], [], []
    for rel, before, after in outcomes:
        if "servers" not in before or not before["servers"]:
            not_comparable.append(rel)
            continue
        if before == after:
            passed.append(rel)
            continue
        missing = MISSING_RE.search(after.get("import_error", ""))
        if missing and not missing.group(1).startswith("mcp") and manifest_declares(copy / rel, missing.group(1)):
            overlay = copy.parent / "overlay"
            overlay.mkdir(exist_ok=True)
            after = with_declared_dependencies(copy / rel, overlay, missing.group(1))
            if before == after:
                passed.append(rel)
                env_limited.append(f"{rel} (verified with its declared `{missing.group(1)}` made importable)")
                continue
        failed.append((rel, sorted(markers.get(rel, set())), str(after)[:300]))

    comparable = len(passed) + len(failed)
    share = len(passed) / comparable
    lines = [
        f"corpus: {len(passed)}/{comparable} server examples migrated with no hand edit ({share:.1%})",
        f"not comparable (do not import under mcp 1.29.0 here): {', '.join(not_comparable) or '-'}",
        f"declared third-party dependencies borrowed from the v1 env: {', '.join(env_limited) or '-'}",
    ] + [f"needs a hand edit: {rel} -> markers {m or 'NONE'}" for rel, m, _ in failed]
    report_text = "\n".join(lines)
    (ROOT / ".cache" / "migrate").mkdir(parents=True, exist_ok=True)
    (ROOT / ".cache" / "migrate" / "corpus-report.txt").write_text(report_text + "\n", encoding="utf-8")
    print(report_text)
    silent = [(rel, detail) for rel, m, detail in failed if not m]
    assert not silent, f"mismatches without a marker explaining them (silent misses): {silent}"
    assert share >= 0.95, report_text


def test_corpus_second_run_is_a_no_op(migrated: tuple[Path, Path, dict[str, Any]], tmp_path: Path) -> None:
    _, copy, _ = migrated
    again = tmp_path / "again"
    shutil.copytree(copy, again)
    proc = subprocess.run([sys.executable, "-m", "mcp_eras.migrate", str(again), "--diff"], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert proc.stdout == ""

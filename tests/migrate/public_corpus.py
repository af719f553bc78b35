"""The public corpus of issue 31 (acceptance 3): published sdists of projects that use the v1 SDK,
listed with their source commits in ``data/public_corpus.toml``. Nothing of theirs is committed.

    python tests/migrate/public_corpus.py fetch

(run by .ci/bootstrap.sh; idempotent) downloads each sdist with pip into ``.cache/migrate/public/sdist``
and checks its sha256, and installs the entry modules' third-party packages (the manifest's ``deps``,
without their own dependencies) into ``.cache/migrate/public/deps``. The tests never fetch anything.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tomllib
import venv
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MANIFEST = HERE / "data" / "public_corpus.toml"
CACHE = ROOT / ".cache" / "migrate" / "public"
SDISTS = CACHE / "sdist"
DEPS = CACHE / "deps"
# pip builds an sdist's metadata before it saves it: these backends, installed once, let it do so
# without a build environment per package
BUILD_BACKENDS = ["hatchling", "setuptools>=77", "wheel", "poetry-core", "pdm-backend", "flit-core"]


def manifest() -> dict[str, Any]:
    return tomllib.loads(MANIFEST.read_text(encoding="utf-8"))


def projects() -> list[dict[str, Any]]:
    return list(manifest()["project"])


def archive(project: dict[str, Any]) -> Path | None:
    """The project's downloaded sdist (any of the names pip may give it), or None."""
    name, version = project["name"], project["version"]
    for stem in (f"{name.replace('-', '_')}-{version}", f"{name}-{version}"):
        for suffix in (".tar.gz", ".zip"):
            path = SDISTS / (stem + suffix)
            if path.exists():
                return path
    return None


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def missing() -> str | None:
    """Why the corpus is not ready (None when every sdist is there with its checksum, and the deps)."""
    for project in projects():
        path = archive(project)
        if path is None:
            return f"{project['name']} {project['version']} not downloaded"
        if sha256(path) != project["sha256"]:
            return f"{path.name}: sha256 {sha256(path)} is not the manifest's {project['sha256']}"
    if _deps_stamp() != "\n".join(manifest()["deps"]):
        return "the entry modules' dependencies are not installed"
    return None


def _deps_stamp() -> str:
    stamp = DEPS / ".stamp"
    return stamp.read_text(encoding="utf-8") if stamp.exists() else ""


def extract(project: dict[str, Any], into: Path) -> Path:
    """Unpack the project's sdist below ``into``; returns its top folder."""
    path = archive(project)
    assert path is not None, f"{project['name']} not downloaded"
    with tarfile.open(path) as tar:
        tops = {m.name.split("/", 1)[0] for m in tar.getmembers()}
        tar.extractall(into, filter="data")
    assert len(tops) == 1, tops
    return into / tops.pop()


def _pip(python: Path, *args: str) -> None:
    subprocess.run([str(python), "-m", "pip", "-q", "--disable-pip-version-check", *args], check=True)


def fetch() -> None:
    SDISTS.mkdir(parents=True, exist_ok=True)
    todo = [p for p in projects() if archive(p) is None or sha256(archive(p)) != p["sha256"]]  # type: ignore[arg-type]
    if todo:
        tools = CACHE / "build-tools"
        python = tools / "bin" / "python"
        if not python.exists():
            venv.create(tools, with_pip=True)
            _pip(python, "install", *BUILD_BACKENDS)
        for project in todo:
            stale = archive(project)
            if stale is not None:
                stale.unlink()
            _pip(python, "download", "--no-deps", "--no-binary", ":all:", "--no-build-isolation",
                 f"{project['name']}=={project['version']}", "-d", str(SDISTS))
            got = archive(project)
            if got is None or sha256(got) != project["sha256"]:
                if got is not None:
                    got.unlink()
                raise SystemExit(f"public corpus: {project['name']} {project['version']}: sha256 mismatch or no sdist")
    wanted = "\n".join(manifest()["deps"])
    if _deps_stamp() != wanted:
        shutil.rmtree(DEPS, ignore_errors=True)
        _pip(Path(sys.executable), "install", "--no-deps", "--target", str(DEPS), *manifest()["deps"])
        (DEPS / ".stamp").write_text(wanted, encoding="utf-8")
    print(f"public corpus: {len(projects())} sdists verified, dependencies in place", file=sys.stderr)


if __name__ == "__main__":
    if sys.argv[1:] != ["fetch"]:
        raise SystemExit("usage: public_corpus.py fetch")
    fetch()

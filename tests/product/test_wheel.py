"""Acceptance 1: the import names are unique to this distribution. The built wheel, installed into a
fresh venv beside sqlalchemy-migrate (which installs a top-level ``migrate``), imports as
``mcp_eras.bridge`` / ``mcp_eras.migrate`` next to sqlalchemy-migrate's ``migrate``, and
``mcp-bridge``, ``mcp-migrate`` and ``mcp-eras`` report the same version.

Needs PyPI (sqlalchemy-migrate, the build backend, the dependencies; pip's cache makes re-runs quick)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import peers

PYPROJECT = tomllib.loads((peers.ROOT / "pyproject.toml").read_text())
MAPPED = "package-dir" in PYPROJECT.get("tool", {}).get("setuptools", {})
needs_mapping = pytest.mark.skipif(not MAPPED, reason="pyproject.toml does not map bridge/ and migrate/ under mcp_eras yet")


@needs_mapping
def test_every_package_folder_is_listed_in_pyproject() -> None:
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    on_disk = {"mcp_eras"} | {"mcp_eras." + ".".join(init.parent.relative_to(peers.ROOT).parts)
                              for top in ("bridge", "migrate") for init in (peers.ROOT / top).rglob("__init__.py")}
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages"
    assert listed - on_disk == set()


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> str:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@needs_mapping
@pytest.mark.slow
@pytest.mark.network
def test_the_wheel_installs_beside_sqlalchemy_migrate(tmp_path: Path) -> None:
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"), str(peers.ROOT)], tmp_path)
    wheel = next((tmp_path / "dist").glob("mcp_eras-*.whl"))
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    py, bin_ = venv / "bin" / "python", venv / "bin"
    # sqlalchemy-migrate imports only with SQLAlchemy 1.x.
    _run([str(py), "-m", "pip", "install", "-q", "sqlalchemy-migrate", "sqlalchemy<2", str(wheel)], tmp_path)
    out = _run([str(py), "-c", "import migrate, mcp_eras.bridge.cli, mcp_eras.migrate.cli, migrate.versioning.api; "
                "print(migrate.__file__); print(mcp_eras.migrate.__file__)"], tmp_path)
    theirs, ours = out.split()
    assert Path(theirs).parent.name == "migrate" and Path(ours).parent.parent.name == "mcp_eras"
    versions = {_run([str(bin_ / name), "--version"], tmp_path).strip() for name in ("mcp-bridge", "mcp-migrate", "mcp-eras")}
    assert versions == {f"mcp-eras {PYPROJECT['project']['version']}"}

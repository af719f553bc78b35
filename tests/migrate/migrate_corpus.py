"""The real corpus: the v1 SDK's own ``examples/`` from the ``mcp==1.29.0`` sdist (never committed).

The sdist is downloaded once with pip into the repository's git-ignored ``.cache/`` directory.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "migrate"
SDIST_VERSION = "1.29.0"
SERVER_RE = re.compile(r"\b(FastMCP|Server)\(")


def examples_dir() -> Path:
    """Path of the pristine ``examples/`` tree of the v1 sdist (download + extract once)."""
    target = CACHE / "src" / f"mcp-{SDIST_VERSION}" / "examples"
    if target.is_dir():
        return target
    sdist_dir = CACHE / "sdist"
    archive = sdist_dir / f"mcp-{SDIST_VERSION}.tar.gz"
    if not archive.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             f"mcp=={SDIST_VERSION}", "-d", str(sdist_dir), "-q"],
            check=True,
        )
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if "/examples/" in m.name or m.name.endswith("/examples")]
        tar.extractall(CACHE / "src", members=members, filter="data")
    return target


def server_examples(root: Path) -> list[Path]:
    """Example modules that construct a server (FastMCP or the lowlevel Server)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if "clients" in path.relative_to(root).parts:
            continue
        if SERVER_RE.search(path.read_text(encoding="utf-8")):
            found.append(path)
    return found

"""Find the files to migrate: Python sources and dependency manifests.

Version-control metadata, virtual environments, ``node_modules`` and build outputs are pruned;
symlinks are never followed (a link that loops or dangles is reported); explicit file arguments
are always taken. A path below its project's root (``mcp-migrate ./src``) brings the manifests of
the nearest enclosing project root too (``project_manifests``), since they pin the SDK its code uses.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

SKIP_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", ".venvs", "node_modules", "build", "dist", "__pycache__",
        ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages", ".eggs",
        "_build", "htmlcov",
    }
)
MANIFEST_NAMES = ("pyproject.toml", "setup.cfg")
REPORT_ONLY_NAMES = ("uv.lock", "poetry.lock", "pdm.lock", "requirements.lock", "Pipfile.lock", "setup.py")


def classify(path: Path) -> str | None:
    """'python', 'manifest', 'requirements', 'lockfile', 'notebook' or None (not ours)."""
    name = path.name
    if name in ("uv.lock", "poetry.lock", "pdm.lock", "requirements.lock", "Pipfile.lock"):
        return "lockfile"
    if name.endswith((".py", ".pyi")):
        return "python"
    if name in MANIFEST_NAMES:
        return "manifest"
    if (name.startswith(("requirements", "constraints")) and name.endswith((".txt", ".in"))) or name.endswith(
        ".requirements.txt"
    ):
        return "requirements"
    if name.endswith(".ipynb"):
        return "notebook"
    return None


@dataclass
class Discovery:
    files: list[tuple[Path, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)


def _is_venv(path: Path) -> bool:
    return (path / "pyvenv.cfg").exists()


def _excluded(path: Path, patterns: list[str]) -> bool:
    text = path.as_posix()
    return any(fnmatch.fnmatch(text, pat) or fnmatch.fnmatch(path.name, pat) or fnmatch.fnmatch(text, f"*/{pat}")
               for pat in patterns)


def _symlink_problem(path: Path) -> str:
    try:
        path.resolve(strict=True)
    except RuntimeError:
        return "symlink loop"
    except OSError as exc:
        if "loop" in str(exc).lower() or getattr(exc, "errno", None) == 40:
            return "symlink loop"
        return "dangling symlink"
    return "symlink not followed"


def discover(paths: list[Path], exclude: list[str] | None = None) -> Discovery:
    patterns = list(exclude or [])
    out = Discovery()
    seen: set[Path] = set()

    def take(path: Path, kind: str) -> None:
        key = path.absolute()
        if key not in seen:
            seen.add(key)
            out.files.append((path, kind))

    for root in paths:
        if root.is_symlink() and not root.exists():
            out.skipped.append((str(root), _symlink_problem(root)))
            continue
        if root.is_file():
            take(root, classify(root) or "python")
            continue
        if not root.is_dir():
            out.skipped.append((str(root), "not found"))
            continue
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            base = Path(dirpath)
            keep: list[str] = []
            for name in sorted(dirnames):
                sub = base / name
                if name in SKIP_DIRS or name.endswith(".egg-info") or _is_venv(sub) or _excluded(sub, patterns):
                    continue
                if sub.is_symlink():
                    out.skipped.append((str(sub), _symlink_problem(sub)))
                    continue
                keep.append(name)
            dirnames[:] = keep
            for name in sorted(filenames):
                path = base / name
                kind = classify(path)
                if _excluded(path, patterns):
                    continue
                if path.is_symlink():
                    problem = _symlink_problem(path)
                    if kind is not None or problem != "symlink not followed":
                        out.skipped.append((str(path), problem))
                    continue
                if kind is None:
                    continue
                take(path, kind)
    return out


def project_manifests(paths: list[Path]) -> list[Path]:
    """Manifests of the nearest project root above each directory in ``paths`` (an ancestor holding a
    ``pyproject.toml``, ``setup.cfg`` or requirements file; the search stops at a ``.git`` directory),
    not already under one of ``paths``."""
    roots = [p.absolute() for p in paths if p.is_dir()]
    found: list[Path] = []
    for root in roots:
        if (root / ".git").exists():
            continue  # the checkout's own root: nothing above it belongs to this project
        for parent in root.parents:
            manifests = sorted(f for f in parent.iterdir() if f.is_file() and not f.is_symlink()
                               and classify(f) in ("manifest", "requirements", "lockfile")) if parent.is_dir() else []
            if manifests:
                found.extend(m for m in manifests if m not in found and not any(m.is_relative_to(r) for r in roots))
                break
            if (parent / ".git").exists():
                break
    return found

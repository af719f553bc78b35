"""``[tool.mcp-migrate]`` in the user's ``pyproject.toml`` (nearest one at or above the target)."""

from __future__ import annotations

import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Config:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    safe_only: bool = False
    jobs: int | None = None
    source: str | None = None
    modernize: bool = False  # `modernize = true`: as --modernize


def _list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def find_pyproject(start: Path) -> Path | None:
    here = start.absolute()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
        if (folder / ".git").exists():
            break
    return None


def load_config(targets: list[Path]) -> tuple[Config, str | None]:
    """Return the config and, if the pyproject exists but is unreadable, a warning."""
    if not targets:
        return Config(), None
    pyproject = find_pyproject(targets[0])
    if pyproject is None:
        return Config(), None
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        return Config(), f"{pyproject}: cannot read [tool.mcp-migrate] ({exc})"
    table = data.get("tool", {}).get("mcp-migrate", {})
    if not isinstance(table, dict):
        return Config(), None
    jobs = table.get("jobs")
    return (
        Config(
            select=_list(table.get("select")),
            ignore=_list(table.get("ignore")),
            exclude=_list(table.get("exclude")),
            safe_only=bool(table.get("safe-only", table.get("safe_only", False))),
            jobs=int(jobs) if isinstance(jobs, int) else None,
            source=str(pyproject),
            modernize=table.get("modernize") is True,
        ),
        None,
    )


def dirty_files(paths: list[Path]) -> set[Path] | None:
    """Absolute paths with uncommitted changes under ``paths`` (None when not in a git checkout)."""
    dirty: set[Path] = set()
    in_git = False
    for target in paths:
        folder = target if target.is_dir() else target.parent
        try:
            top = subprocess.run(["git", "-C", str(folder), "rev-parse", "--show-toplevel"], capture_output=True,
                                 text=True, check=False)
        except OSError:
            return None
        if top.returncode != 0:
            continue
        in_git = True
        root = Path(top.stdout.strip())
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "-z", "--untracked-files=all", "--",
             str(target.absolute())],
            capture_output=True, text=True, check=False,
        )
        for entry in status.stdout.split("\0"):
            if len(entry) > 3:
                dirty.add((root / entry[3:]).resolve())
    return dirty if in_git else None

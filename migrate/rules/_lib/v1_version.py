"""Which ``mcp`` 1.x releases a project was written for: the ``mcp`` requirement of the nearest
dependency manifest above a file (``pyproject.toml``, ``requirements*.txt``, ``setup.cfg``), checked
against the 1.x release line. Used where a v1 signature drifted within 1.x."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from mcp_eras.migrate.manifests import normalize, requirements_in

# every 1.x minor, patch levels 0-9: enough to tell which side of a drift a specifier admits
RELEASES = tuple((1, minor, patch) for minor in range(0, 31) for patch in range(10))
CLAUSE = re.compile(r"\s*(===|==|!=|~=|>=|<=|>|<)\s*([0-9][0-9a-zA-Z.*+!-]*)\s*")


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


def _admits(op: str, bound: str, release: tuple[int, int, int]) -> bool:
    if bound.endswith(".*"):
        prefix = _version(bound[:-2])
        hit = release[: len(prefix)] == prefix
        return hit if op == "==" else not hit
    want = _version(bound)
    padded = want + (0,) * (3 - len(want))
    if op in ("==", "==="):
        return release == padded[:3]
    if op == "!=":
        return release != padded[:3]
    if op == ">=":
        return release >= padded
    if op == "<=":
        return release <= padded
    if op == ">":
        return release > padded
    if op == "<":
        return release < padded
    # ~=X.Y -> >=X.Y, ==X.*; ~=X.Y.Z -> >=X.Y.Z, ==X.Y.*
    return release >= padded and release[: max(len(want) - 1, 1)] == want[: max(len(want) - 1, 1)]


def admitted(spec: str) -> tuple[tuple[int, int, int], ...] | None:
    """The 1.x releases ``spec`` admits; None when it cannot be read (an empty spec admits all)."""
    spec = spec.strip()
    if spec.startswith("^"):  # Poetry caret: ^1.9 -> >=1.9,<2
        spec = f">={spec[1:]},<2"
    clauses = [c for c in spec.split(",") if c.strip()] if spec else []
    parsed = [CLAUSE.fullmatch(c) for c in clauses]
    if any(m is None for m in parsed):
        return None
    return tuple(r for r in RELEASES if all(_admits(m.group(1), m.group(2), r) for m in parsed if m))


@cache
def project_spec(folder: str) -> str | None:
    """The ``mcp`` requirement's specifier in the nearest manifest at or above ``folder`` (up to the
    checkout root); None when no manifest there names ``mcp``."""
    for parent in (Path(folder), *Path(folder).parents):
        candidates = [(parent / "pyproject.toml", "toml"), (parent / "setup.cfg", "cfg"),
                      *((p, "requirements") for p in sorted(parent.glob("requirements*.txt")))]
        for path, kind in candidates:
            if not path.is_file():
                continue
            try:
                found = requirements_in(kind, path.name, path.read_text(encoding="utf-8"))
            except (OSError, ValueError, UnicodeDecodeError):
                continue
            specs = [req.spec for _, req in found if normalize(req.name) == "mcp"]
            if specs:
                return specs[0]
        if (parent / ".git").exists():
            return None
    return None


def written_for(path: str) -> tuple[tuple[int, int, int], ...] | None:
    """The 1.x releases the project holding ``path`` admits, or None when that is unknown."""
    spec = project_spec(str(Path(path).absolute().parent))
    return None if spec is None else admitted(spec)

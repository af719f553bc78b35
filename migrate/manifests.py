"""Dependency-manifest helpers: PEP 508 strings, requirements files, pyproject (PEP 621, dependency
groups, Poetry) and setup.cfg. TOML edits go through tomlkit so that comments and layout outside
the edited value survive byte for byte."""

from __future__ import annotations

import configparser
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import tomlkit
from tomlkit.items import Array, String, StringType, Table

REQ_RE = re.compile(
    r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?P<extras>\[[^\]]*\])?\s*(?P<spec>[^;@#]*?)\s*(?P<marker>;[^#]*)?$"
)
VERSION_RE = re.compile(r"(>=|==|~=|\^|~|>)\s*v?(\d+)(?:\.(\d+))?")
TARGET = ">=2.3,<3"


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Requirement:
    name: str
    extras: str
    spec: str
    marker: str

    def render(self) -> str:
        marker = f"{self.marker}" if self.marker else ""
        return f"{self.name}{self.extras}{self.spec}{marker}"


def parse_requirement(text: str) -> Requirement | None:
    match = REQ_RE.match(text.strip())
    if not match:
        return None
    marker = match.group("marker") or ""
    return Requirement(match.group("name"), match.group("extras") or "", match.group("spec") or "", marker)


def floor(spec: str) -> tuple[int, int] | None:
    """Lowest major.minor the specifier admits, when it states one."""
    found = [(int(m.group(2)), int(m.group(3) or 0)) for m in VERSION_RE.finditer(spec) if m.group(1) != ">"]
    return min(found) if found else None


def needs_bump(spec: str) -> bool:
    low = floor(spec)
    if low is None or low < (2, 3):
        return True
    return "<2" in spec.replace(" ", "")


def bump_spec(spec: str) -> str:
    return spec if not needs_bump(spec) else TARGET


def drop_ws_extra(extras: str) -> tuple[str, bool]:
    if not extras:
        return extras, False
    names = [e.strip() for e in extras.strip("[]").split(",") if e.strip()]
    kept = [e for e in names if e.lower() != "ws"]
    if len(kept) == len(names):
        return extras, False
    return (f"[{','.join(kept)}]" if kept else ""), True


def bump_requirement(text: str) -> tuple[str, bool] | None:
    """New text for an ``mcp`` requirement (or None when it is not one / already fine).
    Second item: the removed ``ws`` extra was dropped."""
    req = parse_requirement(text)
    if req is None or normalize(req.name) != "mcp":
        return None
    extras, dropped = drop_ws_extra(req.extras)
    spec = bump_spec(req.spec)
    if spec == req.spec and not dropped:
        return None
    leading = text[: len(text) - len(text.lstrip())]
    return leading + Requirement(req.name, extras, spec, req.marker).render(), dropped


# ------------------------------------------------------------------------------ walkers
def requirement_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, requirement text) of a requirements file (options and comments skipped)."""
    for number, line in enumerate(text.splitlines(), start=1):
        body = line.split(" #", 1)[0].split("\t#", 1)[0].strip()
        if body and not body.startswith(("#", "-")):
            yield number, body


def toml_arrays(doc: Any) -> Iterator[Array]:
    """Every PEP 508 string array: [project] dependencies / optional-dependencies, [dependency-groups]."""
    project = doc.get("project")
    if isinstance(project, dict):
        deps = project.get("dependencies")
        if isinstance(deps, list):
            yield deps
        optional = project.get("optional-dependencies")
        if isinstance(optional, dict):
            yield from (v for v in optional.values() if isinstance(v, list))
    groups = doc.get("dependency-groups")
    if isinstance(groups, dict):
        yield from (v for v in groups.values() if isinstance(v, list))


def poetry_tables(doc: Any) -> Iterator[Any]:
    poetry = doc.get("tool", {}).get("poetry") if isinstance(doc.get("tool"), dict) else None
    if not isinstance(poetry, dict):
        return
    for key in ("dependencies", "dev-dependencies"):
        if isinstance(poetry.get(key), dict):
            yield poetry[key]
    groups = poetry.get("group")
    if isinstance(groups, dict):
        for group in groups.values():
            if isinstance(group, dict) and isinstance(group.get("dependencies"), dict):
                yield group["dependencies"]


def edit_array_strings(array: Array, edit: Callable[[str], str | None]) -> int:
    changed = 0
    for i, item in enumerate(list(array)):
        if not isinstance(item, str):
            continue
        new = edit(str(item))
        if new is None:
            continue
        literal = isinstance(item, String) and item.type in (StringType.SLL, StringType.MLL) and "'" not in new
        array[i] = tomlkit.string(new, literal=literal)
        changed += 1
    return changed


def line_of(text: str, needle: str) -> int:
    index = text.find(needle)
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


def parse_toml(text: str) -> tomlkit.TOMLDocument:
    """tomlkit document; raises ValueError for invalid TOML (checked by the strict stdlib parser too)."""
    try:
        tomllib.loads(text)
        return tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, tomlkit.exceptions.TOMLKitError) as exc:
        raise ValueError(f"not valid TOML, left untouched: {exc}") from exc


def declared_names(kind: str, name: str, text: str) -> set[str]:
    """Normalised names of every dependency a manifest declares (best effort; empty on errors)."""
    names: set[str] = set()
    try:
        if kind == "requirements":
            for _, line in requirement_lines(text):
                req = parse_requirement(line)
                if req:
                    names.add(normalize(req.name))
        elif name == "pyproject.toml":
            doc = tomllib.loads(text)
            for array in toml_arrays(doc):
                names.update(normalize(r.name) for r in map(parse_requirement, map(str, array)) if r)
            for table in poetry_tables(doc):
                names.update(normalize(k) for k in table)
        elif name == "setup.cfg":
            parser = configparser.ConfigParser()
            parser.read_string(text)
            for line in parser.get("options", "install_requires", fallback="").splitlines():
                req = parse_requirement(line)
                if req:
                    names.add(normalize(req.name))
    except (ValueError, tomllib.TOMLDecodeError, configparser.Error):
        return set()
    return names


__all__ = ["Table", "bump_requirement", "declared_names", "parse_toml", "poetry_tables", "toml_arrays"]


def requirements_in(kind: str, name: str, text: str) -> list[tuple[int, Requirement]]:
    """(line, requirement) of every PEP 508 requirement a manifest declares (best effort)."""
    found: list[tuple[int, Requirement]] = []
    if kind == "requirements":
        for number, body in requirement_lines(text):
            req = parse_requirement(body)
            if req:
                found.append((number, req))
    elif name == "pyproject.toml":
        doc = tomllib.loads(text)
        for array in toml_arrays(doc):
            for item in array:
                req = parse_requirement(str(item))
                if req:
                    found.append((line_of(text, str(item)), req))
        for table in poetry_tables(doc):
            for key, value in table.items():
                spec = value.get("version", "") if isinstance(value, dict) else value
                if isinstance(spec, str):
                    found.append((line_of(text, f"{key} ="), Requirement(key, "", spec, "")))
    elif name == "setup.cfg":
        parser = configparser.ConfigParser()
        parser.read_string(text)
        for raw in parser.get("options", "install_requires", fallback="").splitlines():
            req = parse_requirement(raw)
            if req:
                found.append((line_of(text, raw.strip()), req))
    return found

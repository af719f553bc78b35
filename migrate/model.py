"""Shared data model of mcp-migrate: rule metadata, findings and per-file results."""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any

GUIDE = "https://github.com/modelcontextprotocol/python-sdk/blob/main/docs/migration.md"


class Safety(enum.StrEnum):
    """How a rule's edit may be applied (ruff's applicability vocabulary)."""

    SAFE = "safe"  # always preserves v1 behaviour
    REVIEW = "review"  # applied, but leaves a marker and a report entry for a human
    REPORT = "report-only"  # never rewritten: marker + report entry


class Kind(enum.StrEnum):
    REQUIRED = "required"
    OPTIONAL = "optional"
    ADVISORY = "advisory"
    GUARD = "guard"


@dataclass(frozen=True)
class RuleMeta:
    id: str
    slug: str
    kind: Kind
    safety: Safety
    summary: str
    anchor: str = ""  # fragment of the migration guide, without '#'

    @property
    def severity(self) -> str:
        """SARIF-style level: required rules are errors, the rest warnings/notes."""
        if self.kind is Kind.REQUIRED:
            return "error"
        if self.kind is Kind.ADVISORY:
            return "note"
        return "warning"

    @property
    def url(self) -> str:
        return f"{GUIDE}#{self.anchor}" if self.anchor else GUIDE


@dataclass
class Finding:
    rule: str
    slug: str
    path: str
    line: int
    column: int
    message: str
    status: str  # "fixed" | "review" (fixed, marker left) | "manual" (marker, not fixed) | "skipped"
    safety: str

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FileResult:
    path: str
    kind: str  # "python" | "manifest"
    changed: bool = False
    new_text: str | None = None
    original_text: str | None = None
    findings: list[Finding] = field(default_factory=list)
    skipped: str | None = None  # reason the file was left untouched
    failed: bool = False  # skipped because mcp-migrate itself failed on it (sets the exit code)
    markers: int = 0
    new_bytes: bytes | None = None

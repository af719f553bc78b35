"""Base class of rules that edit dependency manifests instead of Python sources."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from mcp_eras.migrate.model import Finding, RuleMeta


@dataclass
class ManifestContext:
    path: str
    kind: str  # "manifest" (pyproject.toml / setup.cfg) | "requirements" | "lockfile" | "notebook"
    safe_only: bool = False
    findings: list[Finding] = field(default_factory=list)
    project_imports: frozenset[str] = frozenset()  # top-level modules the project's Python code imports


class ManifestRule:
    META: ClassVar[RuleMeta]
    KINDS: ClassVar[tuple[str, ...]] = ("manifest", "requirements")

    def report(self, ctx: ManifestContext, line: int, message: str, status: str) -> None:
        ctx.findings.append(
            Finding(self.META.id, self.META.slug, ctx.path, line, 1, message, status, str(self.META.safety))
        )

    def apply(self, ctx: ManifestContext, text: str) -> str:
        """Return the edited text (or ``text`` unchanged); record findings on ``ctx``."""
        raise NotImplementedError

"""What a rule may know about the file it transforms (``FileContext``), inline ignore comments
and the marker text, plus small name helpers shared by every rule."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst._metadata_dependent import LazyValue
from libcst.metadata import BaseMetadataProvider, MetadataWrapper

from mcp_eras.migrate.index import ProjectIndex
from mcp_eras.migrate.model import Finding
from mcp_eras.migrate.resolve import ImportTable

IGNORE_RE = re.compile(r"#\s*mcp-migrate:\s*ignore\[([^\]]*)\]\s*(.*)$")
MARKER_PREFIX = "# TODO(mcp-migrate "
HIDDEN = "\0"  # prefix of a pending note that is reported but not written (see ``wants_marker``)


def ignore_table(code: str) -> dict[int, set[str]]:
    """Line number -> rule IDs/slugs named by an inline ``# mcp-migrate: ignore[...] <reason>``.

    A suppression must say why: a comment without a reason after the brackets is not honoured."""
    table: dict[int, set[str]] = {}
    if "mcp-migrate:" not in code:
        return table
    for number, line in enumerate(code.splitlines(), start=1):
        match = IGNORE_RE.search(line)
        if match and match.group(2).strip():
            table[number] = {part.strip() for part in match.group(1).split(",") if part.strip()}
    return table


@dataclass
class FileContext:
    """Everything a rule may know about the file it transforms."""

    path: str
    module: str
    code: str
    index: ProjectIndex
    safe_only: bool = False
    findings: list[Finding] = field(default_factory=list)
    ignores: dict[int, set[str]] = field(default_factory=dict)
    selected: frozenset[str] = frozenset()  # IDs of the rules in this run
    wrapper: MetadataWrapper | None = None
    markers: str = "all"  # which findings leave a source marker: "all", "action" (not advisories), "none"
    lines: list[str] | None = None
    # traversal state shared by every rule of the combined pass
    nodes: list[cst.CSTNode] = field(default_factory=list)
    statements: list[cst.CSTNode] = field(default_factory=list)
    pending: dict[int, list[str]] = field(default_factory=dict)
    inserted: set[int] = field(default_factory=set)  # statements a rule put before the one it rewrote
    # statement lines from the stdlib parser (see resolve.statement_lines), assigned in visiting order
    stmt_lines: list[tuple[int, int]] | None = None
    positions: dict[int, tuple[int, int]] = field(default_factory=dict)
    visited_statements: int = 0
    _resolved: dict[type, Any] = field(default_factory=dict)
    _table: ImportTable | None = None

    def metadata(self, provider: type[BaseMetadataProvider[Any]]) -> Any:
        """Node -> value mapping of ``provider``, resolved on first use and shared by all rules.

        Scope analysis is the dominant cost of a pass, so a file on which no rule ever asks for a
        qualified name never pays for it."""
        if provider not in self._resolved:
            assert self.wrapper is not None
            self._resolved[provider] = self.wrapper.resolve(provider)
        return self._resolved[provider]

    def table(self) -> ImportTable:
        if self._table is None:
            assert self.wrapper is not None
            self._table = ImportTable(self.wrapper.module, self.code, self.module, self.path.endswith("__init__.py"))
        return self._table

    def lookup(self, provider: type[BaseMetadataProvider[Any]], node: cst.CSTNode, default: Any = None) -> Any:
        value = self.metadata(provider).get(node, default)
        return value() if isinstance(value, LazyValue) else value


def build_dotted(text: str) -> cst.Name | cst.Attribute:
    parts = text.split(".")
    expr: cst.Name | cst.Attribute = cst.Name(parts[0])
    for part in parts[1:]:
        expr = cst.Attribute(value=expr, attr=cst.Name(part))
    return expr

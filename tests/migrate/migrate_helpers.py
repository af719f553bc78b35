"""Shared helpers of the mcp-migrate tests: run selected rules over a source string."""

from __future__ import annotations

import textwrap

from mcp_eras.migrate.engine import Options, transform_python
from mcp_eras.migrate.index import ProjectIndex, index_file
from mcp_eras.migrate.model import Finding


def migrate_source(source: str, *rules: str, path: str = "server.py",
                   safe_only: bool = False) -> tuple[str, list[Finding]]:
    """Dedent ``source``, index it as a one-file project and apply ``rules`` (all if none)."""
    from pathlib import Path

    from mcp_eras.migrate.rules import select_rules

    code = textwrap.dedent(source)
    index = ProjectIndex()
    index_file(index, Path(path), code)
    chosen = tuple(rules) if rules else tuple(select_rules())
    new, findings, failure = transform_python(path, code, Options(chosen, safe_only), index)
    assert failure is None, failure
    return new, findings


def assert_idempotent(source: str, *rules: str) -> str:
    once, _ = migrate_source(source, *rules)
    twice, _ = migrate_source(once, *rules)
    assert twice == once
    return once


def dedent(text: str) -> str:
    return textwrap.dedent(text)

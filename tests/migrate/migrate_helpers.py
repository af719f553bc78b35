"""Shared helpers of the mcp-migrate tests: run selected rules over a source string, and the standard
checks every per-rule module (``tests/migrate/rules/test_mcpNNN.py``) runs on its cases."""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from mcp_eras.migrate.engine import Options, transform_manifest, transform_python
from mcp_eras.migrate.index import ProjectIndex, index_file
from mcp_eras.migrate.model import Finding, Kind

MARKER = "# TODO(mcp-migrate "
# a server module's first two lines, shared by many cases
SERVER = "from mcp.server.fastmcp import FastMCP, Context\nmcp = FastMCP('x')\n"
# unrelated code with odd spacing, comments and quotes: a rule must leave it byte for byte as it is
UNTOUCHED = """

# untouched:   odd   spacing, a comment and 'quotes' kept as written
def  _untouched( a ,b = ( 1 ,2 ) ) :   # trailing   comment
    return {'k' :a,   "v":b}
"""


def migrate_source(source: str, *rules: str, path: str = "server.py", safe_only: bool = False,
                   markers: str = "all", select: str | list[str] | None = None) -> tuple[str, list[Finding]]:
    """Dedent ``source``, index it as a one-file project and apply ``rules`` (all default rules if none).

    ``select`` takes what ``--select`` takes (IDs, ID prefixes, slugs; a list or one comma-separated
    string) and adds those rules; ``markers`` is ``--markers`` (``all`` here, as the engine's default)."""
    from mcp_eras.migrate.rules import select_rules

    code = textwrap.dedent(source)
    index = ProjectIndex()
    index_file(index, Path(path), code)
    if select is not None:
        tokens = select.split(",") if isinstance(select, str) else list(select)
        rules = (*rules, *select_rules(tokens))
    chosen = tuple(rules) if rules else tuple(select_rules())
    new, findings, failure = transform_python(path, code, Options(chosen, safe_only, markers=markers), index)
    assert failure is None, failure
    return new, findings


def migrate_manifest(name: str, kind: str, text: str, imports: frozenset[str] = frozenset(), *rules: str,
                     safe_only: bool = False) -> tuple[str, list[Finding]]:
    """Apply the manifest ``rules`` (all if none) to a dedented manifest ``text`` named ``name``."""
    from mcp_eras.migrate.rules import select_rules

    chosen = tuple(rules) if rules else tuple(select_rules())
    new, findings, failure = transform_manifest(name, kind, textwrap.dedent(text), Options(chosen, safe_only), imports)
    assert failure is None, failure
    return new, findings


def migrate_tree(root: Path, *extra: str) -> int:
    """Run ``mcp-migrate [extra...] root --allow-no-vcs`` in process; its exit code."""
    import pytest

    from mcp_eras.migrate.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main([*extra, str(root), "--allow-no-vcs"])
    return int(exit_info.value.code or 0)


def before_and_after(folder: Path, name: str, source: str) -> tuple[Path, Path]:
    """``folder/old/<name>`` holding ``source`` and ``folder/new/<name>`` holding its migration (all rules)."""
    old, new = folder / "old", folder / "new"
    old.mkdir()
    new.mkdir()
    (old / name).write_text(textwrap.dedent(source))
    (new / name).write_text(migrate_source(source)[0])
    return old, new


def assert_idempotent(source: str, *rules: str) -> str:
    once, _ = migrate_source(source, *rules)
    twice, _ = migrate_source(once, *rules)
    assert twice == once
    return once


def dedent(text: str) -> str:
    return textwrap.dedent(text)


def unwrapped(text: str) -> str:
    """``text`` with the lines the run kept within the line length joined again: a marker's
    continuation lines onto the marker, a split bracket's items back onto one line."""
    text = re.sub(r"\n[ \t]*#   ", " ", text)
    text = re.sub(r"([(\[{])\n[ \t]+", r"\1", text)
    text = re.sub(r",?\n[ \t]*([)\]}])", r"\1", text)
    return re.sub(r",\n[ \t]+(?=\S)", ", ", text)


def without_markers(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if MARKER not in line)


@dataclass
class Case:
    """One before/after pair of a rule: ``after`` None means the source stays as it is except for
    ``markers`` marker lines (a report-only site); ``statuses`` are the statuses of the findings."""

    rule: str
    before: str
    after: str | None
    statuses: set[str]
    markers: int = 0


def check_before_after(case: Case) -> None:
    new, findings = migrate_source(case.before, case.rule)
    if case.after is not None:
        assert new == dedent(case.after)
    else:
        assert new.count(MARKER) == case.markers
        without = "\n".join(line for line in new.splitlines() if "# TODO(mcp-migrate" not in line)
        if case.statuses == {"manual"}:
            assert without.strip() == dedent(case.before).strip()
    assert {f.status for f in findings} == case.statuses
    assert {f.rule for f in findings} == {case.rule}
    assert new.count(MARKER) == case.markers or case.rule == "MCP007"


def check_idempotent(case: Case) -> None:
    once, _ = migrate_source(case.before, case.rule)
    twice, _ = migrate_source(once, case.rule)
    assert twice == once


def check_idempotent_with_every_rule(case: Case) -> None:
    """With every default rule on, a second run changes nothing and finds nothing that the first run's
    own output created."""
    once, first = migrate_source(case.before)
    twice, second = migrate_source(once)
    assert twice == once
    assert {f.rule for f in second} <= {f.rule for f in first}, dedent(case.before)


def check_untouched(case: Case) -> None:
    """Code the rule has no business with keeps its bytes: migrating ``before`` + unrelated code gives
    the migration of ``before`` followed by that code exactly."""
    alone, findings = migrate_source(case.before, case.rule)
    with_tail, tail_findings = migrate_source(dedent(case.before) + UNTOUCHED, case.rule)
    assert with_tail == alone + UNTOUCHED
    assert [(f.line, f.status) for f in tail_findings] == [(f.line, f.status) for f in findings]


def check_markers_policy(case: Case) -> None:
    """``--markers none`` writes the same code without marker lines; ``action`` drops only an advisory's
    markers; the report is the same under every policy."""
    from mcp_eras.migrate.rules import catalogue

    every, findings = migrate_source(case.before, case.rule)
    none, none_findings = migrate_source(case.before, case.rule, markers="none")
    action, action_findings = migrate_source(case.before, case.rule, markers="action")
    assert none == without_markers(every)
    assert action == (none if catalogue()[case.rule].kind is Kind.ADVISORY else every)
    assert none_findings == findings == action_findings


def check_negative(rule: str, source: str) -> None:
    new, findings = migrate_source(source, rule)
    assert new == source
    assert findings == []


class RuleTests:
    """Base of a per-rule test class: ``class TestMCP003(RuleTests)`` with ``rule``, ``cases`` (before/
    after pairs and report-only sites) and ``negative`` (sources the rule must leave alone and not
    report) runs the standard checks on every case. Not collected itself (no ``Test`` prefix)."""

    rule: ClassVar[str] = ""
    cases: ClassVar[list[Case]] = []
    negative: ClassVar[list[str]] = []

    def pytest_generate_tests(self, metafunc: Any) -> None:
        if "case" in metafunc.fixturenames:
            metafunc.parametrize("case", self.cases, ids=[f"case{i}" for i in range(len(self.cases))])
        if "negative" in metafunc.fixturenames:
            metafunc.parametrize("negative", self.negative, ids=[f"negative{i}" for i in range(len(self.negative))])

    def test_the_rule_has_a_positive_and_a_negative_case(self) -> None:
        assert self.cases and self.negative
        assert {c.rule for c in self.cases} == {self.rule}

    def test_before_after(self, case: Case) -> None:
        check_before_after(case)

    def test_second_run_changes_nothing(self, case: Case) -> None:
        check_idempotent(case)

    def test_second_run_with_every_rule_changes_and_finds_nothing_new(self, case: Case) -> None:
        check_idempotent_with_every_rule(case)

    def test_untouched_code_keeps_its_bytes(self, case: Case) -> None:
        check_untouched(case)

    def test_markers_policy(self, case: Case) -> None:
        check_markers_policy(case)

    def test_negative(self, negative: str) -> None:
        check_negative(self.rule, negative)

"""Render run results as text, JSON (migrate/report.schema.json) or SARIF 2.1.0."""

from __future__ import annotations

import difflib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from mcp_eras.migrate import __version__
from mcp_eras.migrate.model import FileResult, Finding, Kind
from mcp_eras.migrate.rules import catalogue

SCHEMA_PATH = Path(__file__).with_name("report.schema.json")
SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"


def all_findings(results: list[FileResult]) -> list[Finding]:
    return [f for r in results for f in r.findings]


def actionable(finding: Finding, strict: bool = False) -> bool:
    """A finding the user must act on: an edit (made or pending) or an open item of a required or
    optional rule; advisories only with ``strict``. Guard notes (status ``skipped``) never."""
    if finding.status not in ("fixed", "review", "manual"):
        return False
    meta = catalogue().get(finding.rule)
    return strict or meta is None or meta.kind is not Kind.ADVISORY


def tally(results: list[FileResult]) -> list[str]:
    """One line per rule: how many sites, by status (advisories say so)."""
    rules = catalogue()
    by_rule: dict[str, Counter[str]] = {}
    for f in all_findings(results):
        by_rule.setdefault(f.rule, Counter())[f.status] += 1
    lines = []
    for rule_id in sorted(by_rule):
        counts = by_rule[rule_id]
        meta = rules.get(rule_id)
        detail = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        advisory = " advisory" if meta is not None and meta.kind is Kind.ADVISORY else ""
        lines.append(f"  {rule_id} {meta.slug if meta else '':<38} {sum(counts.values()):>5}  ({detail}){advisory}")
    return lines


def summary(results: list[FileResult], mode: str) -> dict[str, Any]:
    findings = all_findings(results)
    return {
        "mode": mode,
        "files_scanned": len(results),
        "files_changed": sum(1 for r in results if r.changed),
        "markers": sum(r.markers for r in results if r.kind == "python"),  # left in the tree, earlier runs' too
        "open_items": sum(1 for f in findings if f.status in ("review", "manual")),
        "fixed": sum(1 for f in findings if f.status in ("fixed", "review")),
        "files_skipped": sum(1 for r in results if r.skipped),
        "files_failed": sum(1 for r in results if r.failed),
        "actionable": sum(1 for f in findings if actionable(f)),
        "by_rule": dict(sorted(Counter(f.rule for f in findings).items())),
    }


def to_json(results: list[FileResult], mode: str, extra_skipped: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "tool": "mcp-migrate",
        "version": __version__,
        "summary": summary(results, mode) | {"files_skipped": sum(1 for r in results if r.skipped)
                                             + len(extra_skipped)},
        "files": [
            {"path": r.path, "kind": r.kind, "changed": r.changed, "markers": r.markers, "skipped": r.skipped}
            for r in results
            if r.changed or r.skipped or r.findings
        ],
        "skipped": [{"path": r.path, "reason": r.skipped, "error": r.failed} for r in results if r.skipped]
        + [{"path": p, "reason": why} for p, why in extra_skipped],
        "findings": [f.to_json() for f in all_findings(results)],
    }


def to_sarif(results: list[FileResult], extra_skipped: list[tuple[str, str]]) -> dict[str, Any]:
    rules = catalogue()
    used = sorted({f.rule for f in all_findings(results)})
    descriptors = []
    for rule_id in used:
        meta = rules.get(rule_id)
        descriptor: dict[str, Any] = {"id": rule_id, "name": meta.slug if meta else rule_id}
        if meta:
            descriptor["shortDescription"] = {"text": meta.summary}
            descriptor["helpUri"] = meta.url
            descriptor["defaultConfiguration"] = {"level": meta.severity}
            descriptor["properties"] = {"fixSafety": str(meta.safety), "kind": str(meta.kind)}
        descriptors.append(descriptor)
    position = {rule_id: i for i, rule_id in enumerate(used)}
    sarif_results = []
    for f in all_findings(results):
        meta = rules.get(f.rule)
        sarif_results.append(
            {
                "ruleId": f.rule,
                "ruleIndex": position[f.rule],
                "level": meta.severity if meta else "note",
                "kind": "pass" if f.status == "fixed" else ("review" if f.status == "review" else "open"),
                "message": {"text": f.message},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": Path(f.path).as_posix()},
                            "region": {"startLine": max(f.line, 1), "startColumn": max(f.column, 1)},
                        }
                    }
                ],
                "properties": {"status": f.status, "slug": f.slug},
            }
        )
    for r in results:
        if r.skipped:
            sarif_results.append(_skip_result(r.path, r.skipped))
    for path, why in extra_skipped:
        sarif_results.append(_skip_result(path, why))
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "mcp-migrate",
                        "version": __version__,
                        "informationUri": "https://github.com/modelcontextprotocol/python-sdk",
                        "rules": descriptors,
                    }
                },
                "results": sarif_results,
            }
        ],
    }


def _skip_result(path: str, reason: str) -> dict[str, Any]:
    return {
        "ruleId": "skipped",
        "level": "warning",
        "kind": "notApplicable",
        "message": {"text": f"file skipped: {reason}"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": Path(path).as_posix()}}}],
    }


def to_text(results: list[FileResult], mode: str, extra_skipped: list[tuple[str, str]], verbose: bool = True) -> str:
    lines: list[str] = []
    if verbose:
        for f in all_findings(results):
            if f.status == "fixed" and mode != "check":
                continue
            lines.append(f"{f.path}:{f.line}:{f.column}: {f.rule} [{f.slug}] ({f.status}) {f.message}")
    s = summary(results, mode)
    skipped = [(r.path, r.skipped) for r in results if r.skipped] + list(extra_skipped)
    verb = {"fix": "changed", "diff": "would change", "check": "would change"}[mode]
    lines.append(
        f"{s['files_scanned']} files scanned, {s['files_changed']} {verb}, {s['markers']} TODO markers left, "
        f"{s['open_items']} items to review, {len(skipped)} skipped."
    )
    for path, why in skipped:
        lines.append(f"  skipped {path}: {why}")
    rows = tally(results)
    if rows:
        lines.append("By rule:")
        lines.extend(rows)
    return "\n".join(lines) + "\n"


def unified_diff(result: FileResult) -> str:
    if not result.changed or result.original_text is None or result.new_text is None:
        return ""
    return "".join(
        difflib.unified_diff(
            result.original_text.splitlines(keepends=True),
            result.new_text.splitlines(keepends=True),
            fromfile=f"a/{result.path}",
            tofile=f"b/{result.path}",
        )
    )


def load_baseline(path: Path) -> set[tuple[str, str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return {(f["rule"], Path(f["path"]).as_posix(), f["message"]) for f in data.get("findings", [])}


def apply_baseline(results: list[FileResult], baseline: set[tuple[str, str, str]]) -> None:
    for r in results:
        r.findings = [f for f in r.findings if (f.rule, Path(f.path).as_posix(), f.message) not in baseline]

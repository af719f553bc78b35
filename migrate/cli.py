"""mcp-migrate command line (typer).

    mcp-migrate ./src            rewrite in place, then print a summary
    mcp-migrate ./src --diff     print unified diffs, write nothing (exit 1 if anything would change)
    mcp-migrate check ./src      report only (exit 0 clean, 1 actionable findings, 2 nothing readable)

``main()`` routes a bare path to the ``fix`` command so that both spellings work as written.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from mcp_eras.bridge import cli_help
from mcp_eras.migrate import engine, report
from mcp_eras.migrate.catalogue import PLANNED
from mcp_eras.migrate.config import dirty_files, load_config
from mcp_eras.migrate.discover import discover, project_manifests
from mcp_eras.migrate.model import FileResult
from mcp_eras.migrate.packages import half_migrated
from mcp_eras.migrate.rules import catalogue, select_rules, unknown_tokens

app = typer.Typer(add_completion=True, no_args_is_help=True, context_settings={"help_option_names": ["-h", "--help"]}, cls=cli_help.Group,
                  help="Port MCP Python SDK v1 (FastMCP) code to v2 (MCPServer).")
COMMANDS = ("fix", "check", "rules")


class Format(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"


PathsArg = Annotated[list[Path], typer.Argument(metavar="PATH", help="Files or directories to migrate.")]
SelectOpt = Annotated[list[str] | None, typer.Option("--select", metavar="RULES", help="Rule IDs, ID prefixes or slugs (comma-separated).")]
IgnoreOpt = Annotated[list[str] | None, typer.Option("--ignore", metavar="RULES", help="Rule IDs, ID prefixes or slugs to skip.")]
SafeOpt = Annotated[bool, typer.Option("--safe-only", help="Apply only safe fixes; review-class sites are reported.")]
JobsOpt = Annotated[int | None, typer.Option("--jobs", "-j", min=1, metavar="N", help="Worker processes (default: CPU count).")]
ExcludeOpt = Annotated[list[str] | None, typer.Option("--exclude", metavar="GLOB", help="Glob of paths to skip (repeatable).")]
FormatOpt = Annotated[Format, typer.Option("--format", help="Report format.")]
OutputOpt = Annotated[Path | None, typer.Option("--output", "-o", metavar="FILE", help="Write the report to FILE.")]
BaselineOpt = Annotated[Path | None, typer.Option("--baseline", metavar="FILE", help="JSON report whose findings are suppressed.")]
ModernizeOpt = Annotated[bool, typer.Option(
    "--modernize", help="Also rewrite input requests made mid-call in tools (ctx.elicit, ctx.session.create_message, "
                        "ctx.session.list_roots) into Resolve(...) parameters that serve 2025 and 2026 clients (MCP106).")]
MODERNIZE = ("MCP106",)


def _version(value: bool) -> None:
    if value:
        from importlib import metadata

        typer.echo(f"mcp-eras {metadata.version('mcp-eras')}")
        raise typer.Exit(0)


# ``--version`` on the root and on every command (``mcp-migrate check --version``), as ``-h`` is
VersionOpt = Annotated[bool, typer.Option("--version", is_eager=True, callback=_version, help="Print the version and exit.")]


def _split(values: list[str] | None) -> list[str]:
    return [part.strip() for v in values or [] for part in v.split(",") if part.strip()]


def _progress_printer(enabled: bool) -> Callable[[int, int], None]:
    """Progress on stderr for large trees: a live counter on a terminal, else a line per quarter."""
    state = {"last": 0.0, "quarter": 0}
    tty = sys.stderr.isatty()

    def show(done: int, total: int) -> None:
        if not enabled or total < 200:
            return
        if tty:
            now = time.monotonic()
            if done == total or now - state["last"] > 0.2:
                state["last"] = now
                end = "\n" if done == total else ""
                sys.stderr.write(f"\rmcp-migrate: {done}/{total} files{end}")
                sys.stderr.flush()
            return
        quarter = done * 4 // total
        if quarter > state["quarter"]:
            state["quarter"] = quarter
            sys.stderr.write(f"mcp-migrate: {done}/{total} files\n")

    return show


class Markers(StrEnum):
    all = "all"
    action = "action"
    none = "none"


MarkersOpt = Annotated[Markers, typer.Option(
    "--markers", help="Source markers: all open findings, only where you must act (advisories go to the report), "
                      "or none.")]


@dataclass
class Run:
    mode: str
    paths: list[Path]
    select: list[str] | None = None
    ignore: list[str] | None = None
    safe_only: bool = False
    jobs: int | None = None
    exclude: list[str] | None = None
    fmt: Format = Format.text
    output: Path | None = None
    baseline: Path | None = None
    allow_dirty: bool = False
    allow_no_vcs: bool = False
    markers: Markers = Markers.action
    strict: bool = False
    modernize: bool = False


def refusal(paths: list[Path], allow_dirty: bool, allow_no_vcs: bool) -> str | None:
    """Why a rewrite must not start (as ``cargo fix``): a path outside version control, or uncommitted
    changes under ``paths``; None when it may. Each path is judged on its own (one checkout among the
    paths does not cover another path outside it); a missing path is left to discovery to report."""
    outside: list[Path] = []
    dirty: set[Path] = set()
    for path in paths:
        if not path.exists():
            continue
        found = dirty_files([path])
        if found is None:
            outside.append(path)
        else:
            dirty |= found
    if outside and not allow_no_vcs:
        return (f"not inside a git checkout: {', '.join(str(p) for p in outside)}: nothing could undo the rewrite. "
                "Commit the code to git first, or pass --allow-no-vcs")
    if dirty and not allow_dirty:
        listed = "\n".join(f"  {os.path.relpath(p)}" for p in sorted(dirty)[:20])  # as the user would type them
        more = f"\n  ... and {len(dirty) - 20} more" if len(dirty) > 20 else ""
        return (f"{len(dirty)} file(s) have uncommitted changes (commit or stash them, or pass --allow-dirty):\n"
                f"{listed}{more}")
    return None


def _execute(run: Run) -> int:
    mode, paths, fmt, output = run.mode, run.paths, run.fmt, run.output
    select, ignore, exclude = run.select, run.ignore, run.exclude
    config, warning = load_config(paths)
    if warning:
        engine.log(f"mcp-migrate: warning: {warning}")
    chosen_select = _split(select) or config.select
    chosen_ignore = _split(ignore) + config.ignore
    bad = unknown_tokens(chosen_select + chosen_ignore)
    if bad:
        engine.log(f"mcp-migrate: unknown rule selector(s): {', '.join(bad)}")
        return 2
    above = [Path(os.path.relpath(p)) for p in project_manifests(paths)]
    if above:
        engine.log("mcp-migrate: also reading the project's manifest(s) above the given path: "
                   + ", ".join(os.path.relpath(p) for p in above))
    if mode == "fix":
        why = refusal([*paths, *above], run.allow_dirty, run.allow_no_vcs)
        if why:
            engine.log(f"mcp-migrate: refusing to rewrite anything: {why}")
            return 2
    chosen = select_rules(chosen_select, chosen_ignore)
    if run.modernize or config.modernize:  # opt-in rules, unless --ignore names them
        chosen += [r for r in select_rules(list(MODERNIZE), chosen_ignore) if r not in chosen]
    options = engine.Options(tuple(chosen), run.safe_only or config.safe_only,
                             keep_texts=mode == "diff", markers=str(run.markers))
    found = discover([*paths, *above], _split(exclude) + config.exclude)
    if not found.files:
        engine.log("mcp-migrate: nothing readable under " + ", ".join(str(p) for p in paths))
        for path, why in found.skipped:
            engine.log(f"  skipped {path}: {why}")
        return 2
    results = engine.run(found.files, options, run.jobs or config.jobs or os.cpu_count() or 1, _progress_printer(True))
    if run.baseline is not None:
        report.apply_baseline(results, report.load_baseline(run.baseline))
    split = half_migrated(results)
    if mode == "fix" and run.strict and split:
        for path, users in split.items():
            engine.log(f"mcp-migrate: refusing to rewrite anything (--strict): {os.path.relpath(path)} is left as it "
                       f"is, but {', '.join(users)} would be migrated and import it")
        return 2
    if mode == "fix":
        engine.write_results(results)
    readable = [r for r in results if not r.skipped or r.findings]
    _emit(results, mode, found.skipped, fmt, output)
    if not readable:
        return 2
    if mode == "diff":
        return 1 if any(r.changed for r in results) else 0
    failed = any(r.failed for r in results)  # mcp-migrate itself failed on a file: never a silent exit 0
    if mode == "check":  # actionable findings only; advisories too with --strict
        return 1 if failed or any(report.actionable(f, run.strict) for r in results for f in r.findings) else 0
    return 1 if failed else 0


def _emit(results: list[FileResult], mode: str, skipped: list[tuple[str, str]], fmt: Format,
          output: Path | None) -> None:
    if fmt is Format.json:
        text = json.dumps(report.to_json(results, mode, skipped), indent=2) + "\n"
    elif fmt is Format.sarif:
        text = json.dumps(report.to_sarif(results, skipped), indent=2) + "\n"
    else:
        text = ""
        if mode == "diff":
            text = "".join(report.unified_diff(r) for r in results)
        summary = report.to_text(results, mode, skipped)
        if output is None and mode == "diff":
            sys.stdout.write(text)
            sys.stderr.write(summary)
            return
        text += summary
    if output is not None:
        output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


@app.command("fix", cls=cli_help.Command)
def fix_command(
    paths: PathsArg,
    diff: Annotated[bool, typer.Option("--diff", help="Print unified diffs and write nothing.")] = False,
    allow_dirty: Annotated[bool, typer.Option("--allow-dirty", help="Rewrite even with uncommitted changes.")] = False,
    allow_no_vcs: Annotated[bool, typer.Option("--allow-no-vcs", help="Rewrite files outside a git checkout.")] = False,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    safe_only: SafeOpt = False,
    jobs: JobsOpt = None,
    exclude: ExcludeOpt = None,
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    baseline: BaselineOpt = None,
    markers: MarkersOpt = Markers.action,
    strict: Annotated[bool, typer.Option("--strict", help="Refuse to write a package it would leave half-migrated.")]
    = False,
    modernize: ModernizeOpt = False,
    version: VersionOpt = False,
) -> None:
    """Rewrite files in place (the default command: `mcp-migrate PATH`)."""
    raise typer.Exit(_execute(Run("diff" if diff else "fix", paths, select, ignore, safe_only, jobs, exclude, fmt,
                                  output, baseline, allow_dirty, allow_no_vcs, markers, strict, modernize)))


@app.command("check", cls=cli_help.Command)
def check_command(
    paths: PathsArg,
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    safe_only: SafeOpt = False,
    jobs: JobsOpt = None,
    exclude: ExcludeOpt = None,
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    baseline: BaselineOpt = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on advisories too.")] = False,
    modernize: ModernizeOpt = False,
    version: VersionOpt = False,
) -> None:
    """Report only, write nothing: exit 0 clean, 1 actionable findings, 2 nothing readable."""
    raise typer.Exit(_execute(Run("check", paths, select, ignore, safe_only, jobs, exclude, fmt, output, baseline,
                                  strict=strict, modernize=modernize)))


@app.command("rules", cls=cli_help.Command)
def rules_command(version: VersionOpt = False) -> None:
    """List the rule catalogue (ID, slug, kind, fix safety)."""
    for meta in catalogue().values():
        typer.echo(f"{meta.id}  {meta.slug:40} {meta.kind!s:9} {meta.safety!s:12} {meta.summary}")
    for rule_id, (slug, klass, _) in PLANNED.items():
        typer.echo(f"{rule_id}  {slug:40} {'planned':9} {klass:12} not implemented yet")


@app.callback()
def _root(version: VersionOpt = False) -> None:
    """Port MCP Python SDK v1 (FastMCP) code to v2 (MCPServer). `mcp-migrate PATH` is `mcp-migrate fix PATH`."""


def route(argv: list[str]) -> list[str]:
    """Insert the implicit ``fix`` command in front of a bare path."""
    if argv and argv[0] not in COMMANDS and argv[0] not in ("--help", "-h", "--version", "--install-completion", "--show-completion"):
        return ["fix", *argv]
    return argv


def main(argv: list[str] | None = None) -> None:
    app(args=route(list(sys.argv[1:] if argv is None else argv)), prog_name="mcp-migrate")


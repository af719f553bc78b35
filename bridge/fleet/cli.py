"""Fleet subcommands (probe, verify, reload): a typer sub-app that ``mcp_eras.bridge.cli`` adds to ``mcp-bridge``
(no import of ``mcp_eras.bridge.cli`` here: shared conventions live in ``mcp_eras.bridge.clikit``)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
from typing import Annotated, Any

import typer

from mcp_eras.bridge import cli_help, clikit
from mcp_eras.bridge.cli_help import HelpEnvOpt
from mcp_eras.bridge.clikit import ERA_CHOICES, DebugOpt, LogFormatOpt, LogLevelOpt, VersionOpt
from mcp_eras.bridge.config import Settings

app = typer.Typer(context_settings=clikit.CONTEXT_SETTINGS, cls=cli_help.Group)
EXIT = "Exit status"


def _fail(message: str, code: int = 2) -> clikit.CliError:
    return clikit.CliError(message, code)


class _CommandAfterDashes(cli_help.Command):
    """Keeps what follows ``--`` together: ``probe -- CMD ARGS`` (the syntax of ``serve``) is ONE command line,
    not one target per word (``python`` alone would wait on its stdin)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if "--" in args:
            ctx.meta["after_dashes"] = args[args.index("--") + 1:]
        return super().parse_args(ctx, args)


def _probe_specs(targets: list[str], after_dashes: list[str] | None) -> list[str | list[str]]:
    """The targets: each word before ``--`` (a URL or a quoted command line) and the command line after it."""
    if not after_dashes:
        return list(targets)
    return [*targets[:max(0, len(targets) - len(after_dashes))], list(after_dashes)]


@app.command(cls=_CommandAfterDashes)
def probe(
    ctx: typer.Context,
    targets: Annotated[list[str] | None, typer.Argument(
        metavar="TARGET", help="URLs or quoted command lines (e.g. 'python server.py stdio'), or one command after `--`.")] = None,
    config: Annotated[str | None, typer.Option(metavar="FILE", help="Probe every server of a fleet config instead.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the JSON report (probe.schema.json) on stdout.")] = False,
    era: Annotated[str, typer.Option(metavar="ERA", help="For TARGETs: auto, 2025-11-25 or 2026-07-28.")] = "auto",
    timeout: Annotated[float, typer.Option(metavar="SECONDS", help="Seconds per probe step.")] = 10.0,
    concurrency: Annotated[int, typer.Option(metavar="N", help="Servers probed at once.")] = 8,
    expect_era: Annotated[str | None, typer.Option(metavar="ERA", rich_help_panel=EXIT,
                                                   help="Exit 1 unless every server speaks this era.")] = None,
    fail_on_untranslatable: Annotated[bool, typer.Option(rich_help_panel=EXIT,
                                                         help="Exit 1 when a server uses an untranslatable feature.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    log_level: LogLevelOpt = "error",
    log_format: LogFormatOpt = None,
    debug: DebugOpt = False,
    version: VersionOpt = False,
    help_env: HelpEnvOpt = False,
) -> None:
    """Which era each server speaks, what it offers, and what the bridge must translate. Exit 1 if any fails."""
    from mcp_eras.bridge.fleet import config as fc
    from mcp_eras.bridge.fleet.probe import ProbeJob, exit_code, probe_all, render_table, stderr_progress
    from mcp_eras.bridge.fleet.verify import parse_target

    clikit.setup_logging(log_level, log_format, debug)
    if era not in ERA_CHOICES:
        raise _fail(f"--era must be one of {', '.join(ERA_CHOICES)}")
    if bool(targets) == bool(config):
        raise _fail("give TARGET... or --config FILE (one of them)")
    jobs: list[ProbeJob] = []
    if config:
        try:
            cfg = fc.load(config)
            base = os.path.dirname(os.path.abspath(config))
            from pathlib import Path

            for name, server in cfg.enabled().items():
                settings = fc.server_settings(cfg.bridge, server).model_copy(update={"probe_timeout": timeout})
                jobs.append(ProbeJob(name, fc.server_target(name, server, base_dir=Path(base)), settings))
        except fc.ConfigError as exc:
            raise _fail(str(exc)) from None
    else:
        settings = Settings(upstream_era=era, probe_timeout=timeout, connect_timeout=timeout, request_timeout=timeout * 3)  # type: ignore[arg-type]
        specs = _probe_specs(list(targets or []), ctx.meta.get("after_dashes"))
        for i, spec in enumerate(specs, 1):
            label = spec if isinstance(spec, str) else shlex.join(spec)
            target = parse_target(spec, name=label if label.startswith("http") else f"target-{i}")
            jobs.append(ProbeJob(label if len(specs) == 1 or label.startswith("http") else f"{i}: {label}", target, settings))
    report = asyncio.run(probe_all(jobs, None if quiet else stderr_progress(), concurrency))
    typer.echo(json.dumps(report, indent=2) if json_out else render_table(report))
    raise typer.Exit(exit_code(report, fail_on_untranslatable, expect_era))


@app.command(cls=cli_help.Command)
def verify(
    old: Annotated[str, typer.Argument(metavar="OLD", help="The old server: URL or quoted command line.")],
    new: Annotated[str, typer.Argument(metavar="NEW", help="The new server: URL or quoted command line.")],
    calls: Annotated[str | None, typer.Option(metavar="FILE", help="JSON / JSON Lines file of calls to replay on both and diff.")] = None,
    read_only: Annotated[bool, typer.Option(help="Also call the tools annotated readOnlyHint that need no arguments.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the JSON report on stdout.")] = False,
    timeout: Annotated[float, typer.Option(metavar="SECONDS", help="Seconds per call.")] = 30.0,
    accept: Annotated[str | None, typer.Option(metavar="FILE", help="JSON / JSON Lines file of expected differences that do not fail "
                                                    "(section, item pattern, optional kind/old/new, reason).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing; the exit status says it (1: differences).")] = False,
    log_level: LogLevelOpt = "error",
    log_format: LogFormatOpt = None,
    debug: DebugOpt = False,
    version: VersionOpt = False,
    help_env: HelpEnvOpt = False,
) -> None:
    """Check that NEW answers like OLD (lists, schemas, replayed calls). Exit 1 on any difference not in --accept."""
    from mcp_eras.bridge.fleet import verify_accept
    from mcp_eras.bridge.fleet.verify import load_calls, parse_target, render_text
    from mcp_eras.bridge.fleet.verify import verify as run_verify

    clikit.setup_logging(log_level, log_format, debug)
    plan = None
    try:
        plan = load_calls(calls) if calls else None
        entries = verify_accept.load(accept) if accept else []
    except (OSError, ValueError) as exc:
        raise _fail(f"{'--calls' if calls and plan is None else '--accept'}: {exc}") from None
    settings = Settings(request_timeout=timeout, probe_timeout=min(timeout, 10.0), connect_timeout=timeout)
    try:
        report = asyncio.run(run_verify(parse_target(old, "old"), parse_target(new, "new"), plan, read_only, settings))
    except Exception as exc:  # noqa: BLE001 - unreachable server: say so, exit 2
        raise _fail(f"verify could not run: {exc.__class__.__name__}: {exc}") from None
    report.differences, accepted, unused = verify_accept.split(report.differences, entries)
    for entry in unused:
        typer.echo(f"mcp-bridge: warning: --accept entry matched no difference: {json.dumps(entry, sort_keys=True)}", err=True)
    if quiet:
        if not report.ok:
            typer.echo(f"mcp-bridge: verify: {len(report.differences)} difference(s)", err=True)
    elif json_out:
        typer.echo(json.dumps({**report.to_json(), "accepted": [d.to_json() for d in accepted]}, indent=2))
    else:
        typer.echo(render_text(report))
        for d in accepted:
            typer.echo(f"accepted: {d.section} {d.item!r} ({d.kind}), listed in {accept}")
    raise typer.Exit(0 if report.ok else 1)


@app.command(cls=cli_help.Command)
def reload(
    url: Annotated[str | None, typer.Option(metavar="URL", help="Bridge base URL (loopback), e.g. http://127.0.0.1:8808.")] = None,
    config: Annotated[str | None, typer.Option(metavar="FILE",
                                               help="Fleet config: its [bridge] listen gives the URL.")] = None,
    pid: Annotated[int | None, typer.Option(metavar="PID", help="Send SIGHUP to this bridge process instead.")] = None,
    debug: DebugOpt = False,
    version: VersionOpt = False,
    help_env: HelpEnvOpt = False,
) -> None:
    """Make a running fleet bridge re-read its config (swaps only the servers that changed)."""
    if pid is not None:
        try:
            os.kill(pid, signal.SIGHUP)
        except OSError as exc:
            raise _fail(f"cannot signal {pid}: {exc}", 1) from None
        typer.echo(f"sent SIGHUP to {pid}")
        return
    if url is None:
        listen = "127.0.0.1:8808"
        if config:
            from mcp_eras.bridge.fleet import config as fc

            try:
                listen = fc.load(config).bridge.listen or listen
            except fc.ConfigError as exc:
                raise _fail(str(exc)) from None
        url = f"http://{listen}"
    import httpx

    try:
        from mcp_eras.bridge.fleet.admin import reload_headers

        resp = httpx.post(url.rstrip("/") + "/admin/reload", timeout=60, headers=reload_headers(config))
    except httpx.HTTPError as exc:
        raise _fail(f"cannot reach {url}: {exc}", 1) from None
    try:
        body = resp.json()
    except ValueError:
        body = {"ok": False, "error": resp.text}
    typer.echo(json.dumps(body, indent=2))
    if not body.get("ok"):
        typer.echo(f"mcp-bridge: reload failed: {body.get('error')}", err=True)
        raise typer.Exit(1)


@app.command(cls=cli_help.Command)
def canary(
    name: Annotated[str, typer.Argument(metavar="SERVER", help="The fleet server whose canary weight changes.")],
    weight: Annotated[float, typer.Option("--weight", metavar="SHARE", help="Share of callers sent to the canary, 0..1 (0 stops it).")],
    url: Annotated[str | None, typer.Option(metavar="URL", help="Bridge base URL (loopback), e.g. http://127.0.0.1:8808.")] = None,
    config: Annotated[str | None, typer.Option(metavar="FILE",
                                               help="Fleet config: gives the URL (its listen key) and the admin token.")] = None,
    token: Annotated[str | None, typer.Option(metavar="TOKEN",
                                              help="Admin token (default: $MCP_BRIDGE_ADMIN_TOKEN or the config's).")] = None,
    help_env: HelpEnvOpt = False,
) -> None:
    """Set a running fleet's canary weight (re-arms a rolled-back canary)."""
    from mcp_eras.bridge.fleet.admin import canary_command

    code, text = canary_command(name, weight, url, config, token)
    typer.echo(text, err=code != 0)
    raise typer.Exit(code)


__all__ = ["canary", "probe", "reload", "verify"]

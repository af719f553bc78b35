"""The help of every command (issue 29): `serve -h` fits in 120 lines at 100 columns, in option groups;
readable metavars (no `<bool>`, `<list[str]>`, `<float>`), no environment variable cut with "…";
`--help-env` lists every variable a command really reads, in full, with its option."""

from __future__ import annotations

import os
import re
import subprocess

import pytest
import typer
from product_helpers import script

from mcp_eras.bridge.cli import app as bridge_app

BRIDGE_COMMANDS = ["serve", "probe", "verify", "reload", "canary"]
EVERY_HELP = [
    ("mcp-bridge", []), *(("mcp-bridge", [c]) for c in BRIDGE_COMMANDS),
    ("mcp-migrate", []), ("mcp-migrate", ["fix"]), ("mcp-migrate", ["check"]), ("mcp-migrate", ["rules"]),
    ("mcp-eras", []), ("mcp-eras", ["bridge", "serve"]), ("mcp-eras", ["migrate", "check"]),
]
TYPE_METAVAR = re.compile(r"<(bool|str|int|float|path|list\[|int range|float range)")
VARIABLE = re.compile(r"^(MCP_BRIDGE_[A-Z0-9_]+)\s+(--[a-z0-9-]+)\s", re.MULTILINE)


def _run(prog: str, args: list[str], columns: int = 100) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("TERMINAL_WIDTH", "FORCE_COLOR", "PY_COLORS")}
    env["COLUMNS"] = str(columns)
    done = subprocess.run([*script(prog), *args], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_serve_help_fits_in_120_lines_at_100_columns_in_groups() -> None:
    out = _run("mcp-bridge", ["serve", "-h"])
    lines = out.rstrip("\n").splitlines()
    assert len(lines) <= 120, f"{len(lines)} lines:\n{out}"
    assert max(len(line) for line in lines) <= 100
    for group in ("Front", "Upstream", "Limits", "Scale-out", "Logging"):
        assert re.search(rf"─ {group} ─", out), group
    for shown in ("--upstream URL", "--request-timeout SECONDS", "--host HOST", "--port, -p PORT", "--env, -e KEY=VALUE",
                  "--max-parked N ", "--pass-environment / --no-pass-environment"):
        assert shown in out, shown
    assert re.search(r"│ --stdio +Serve", out)  # a flag: no metavar


@pytest.mark.parametrize(("prog", "args"), EVERY_HELP, ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_no_type_metavar_and_no_cut_variable_in_any_help(prog: str, args: list[str]) -> None:
    for columns in (80, 100):
        out = _run(prog, [*args, "-h"], columns)
        assert "Usage" in out
        assert not TYPE_METAVAR.search(out), out
        assert "env var" not in out and "…" not in out, out


@pytest.mark.parametrize("command", BRIDGE_COMMANDS)
def test_dash_h_offers_help_env(command: str) -> None:
    assert "--help-env" in _run("mcp-bridge", [command, "-h"])


def _declared(command: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """variable -> option, for every option of ``command`` that click really reads from the environment: each
    candidate name is set and must be the value click resolves for exactly that option."""
    root = typer.main.get_command(bridge_app)
    root_ctx = root.make_context("mcp-bridge", [command], resilient_parsing=True)
    click_command = root.get_command(root_ctx, command)  # type: ignore[attr-defined]
    ctx = click_command.make_context(command, [], parent=root_ctx, resilient_parsing=True)
    found = {}
    for param in click_command.params:
        if param.param_type_name != "option" or not param.expose_value:
            continue
        explicit = param.envvar if isinstance(param.envvar, str) else None
        name = explicit or f"MCP_BRIDGE_{command.upper()}_{param.name.upper()}"
        monkeypatch.setenv(name, "probe-value")
        if param.resolve_envvar_value(ctx) == "probe-value":
            found[name] = next(o for o in param.opts if o.startswith("--"))
        monkeypatch.delenv(name)
    return found


@pytest.mark.parametrize("command", BRIDGE_COMMANDS)
def test_help_env_lists_every_variable_in_full(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    declared = _declared(command, monkeypatch)
    assert declared  # every command reads some
    out = _run("mcp-bridge", [command, "--help-env"], columns=80)
    listed = dict(VARIABLE.findall(out))
    assert listed == declared
    assert "…" not in out
    if command == "serve":  # 45 options, every one of them with its MCP_BRIDGE_<OPTION> variable
        assert len(listed) >= 40 and all(var == "MCP_BRIDGE_" + opt[2:].upper().replace("-", "_")
                                         for var, opt in listed.items())
        assert re.search(r"^MCP_BRIDGE_MAX_PARKED\s+--max-parked\s+1024\s+\S", out, re.MULTILINE)
        assert re.search(r"^MCP_BRIDGE_PASS_ENVIRONMENT\s+--pass-environment\s+true\s", out, re.MULTILINE)


def test_help_env_exits_before_reading_bad_values() -> None:
    env = {**os.environ, "MCP_BRIDGE_PORT": "not-a-port"}
    done = subprocess.run([*script("mcp-bridge"), "serve", "--help-env"], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0 and "MCP_BRIDGE_PORT" in done.stdout, done.stderr

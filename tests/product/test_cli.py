"""CLI conventions (issue 15, acceptance 2): -h/--version everywhere, MCP_BRIDGE_* variables, one-line
errors with the right exit status and no traceback, "listening" only after the bind, quiet Ctrl-C
that reaps every child, and the stdio child's -e/--cwd/--pass-environment."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import httpx
import pytest
import typer
from product_helpers import (
    TINY,
    Running,
    alive,
    assert_one_line_error,
    bridge,
    pids_from,
    request,
    running,
    script,
    tiny_cmd,
    tool_text,
)

import peers

COMMANDS = {
    "mcp-bridge": [[], ["serve"], ["probe"], ["verify"], ["reload"]],
    "mcp-migrate": [[]],
    "mcp-eras": [[], ["bridge"], ["bridge", "serve"], ["migrate"]],
}
HELP_ONLY = {"mcp-migrate": [["fix"], ["check"], ["rules"]], "mcp-eras": [["migrate", "check"]]}


@pytest.mark.parametrize(("prog", "sub"), [(p, s) for p, subs in HELP_ONLY.items() for s in subs],
                         ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_dash_h_on_the_migrate_subcommands(prog: str, sub: list[str]) -> None:
    helped = subprocess.run([*script(prog), *sub, "-h"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and "Usage" in helped.stdout, helped.stderr


@pytest.mark.parametrize(("prog", "sub"), [(p, s) for p, subs in COMMANDS.items() for s in subs],
                         ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_dash_h_and_version_on_every_command(prog: str, sub: list[str]) -> None:
    helped = subprocess.run([*script(prog), *sub, "-h"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0, helped.stderr
    assert "Usage" in helped.stdout
    versioned = subprocess.run([*script(prog), *sub, "--version"], capture_output=True, text=True, timeout=60)
    assert versioned.returncode == 0, versioned.stderr
    assert versioned.stdout.startswith("mcp-eras "), versioned.stdout


def test_the_three_commands_report_one_version() -> None:
    outs = {subprocess.run([*script(p), "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
            for p in COMMANDS}
    assert len(outs) == 1 and outs.pop().split()[1][0].isdigit()


def test_usage_shows_the_command_after_double_dash() -> None:
    out = bridge("serve", "-h", env={"COLUMNS": "250"}).stdout
    assert "-- COMMAND [ARGS]" in out and "--help-env" in out
    # The variables are listed in full by --help-env (-h leaves them out: they were cut with "…" there).
    listed = bridge("serve", "--help-env", env={"COLUMNS": "250"}).stdout
    for env in ("MCP_BRIDGE_HOST", "MCP_BRIDGE_PORT", "MCP_BRIDGE_UPSTREAM", "MCP_BRIDGE_LOG_FORMAT", "MCP_BRIDGE_PATH",
                "MCP_BRIDGE_MAX_UPSTREAM_SESSIONS", "MCP_BRIDGE_MAX_PARKED", "MCP_BRIDGE_HEADER_TIMEOUT"):
        assert env in listed


USAGE_ERRORS = [
    (["serve", "--no-such-option"], "No such option"),
    (["serve", "--port", "abc", "--", "x"], "--port"),
    (["serve", "--upstream-era", "1999", "--", "x"], "--upstream-era must be one of"),
    (["serve"], "give exactly one upstream"),
    (["serve", "--upstream", "http://h/mcp", "--", "x"], "give exactly one upstream"),
    (["serve", "--stdio", "--port", "1", "--", "x"], "--stdio serves on stdin/stdout"),
    (["serve", "--listen", "h:p", "--", "x"], "--listen wants HOST:PORT"),
    (["serve", "--listen", "h:1", "--host", "h", "--", "x"], "not both"),
    (["serve", "-e", "NOEQUALS", "--", sys.executable], "-e wants KEY=VALUE"),
    (["serve", "--log-format", "xml", "--", "x"], "--log-format must be text or json"),
    (["serve", "--path", "mcp", "--", sys.executable], "--path must start with '/'"),
    (["serve", "--max-upstream-sessions", "0", "--", sys.executable], "--max-upstream-sessions must be positive"),
    (["serve", "--header-timeout", "-1", "--", sys.executable], "--header-timeout must be positive"),
    (["frobnicate"], "No such command"),
]


@pytest.mark.parametrize(("args", "needle"), USAGE_ERRORS, ids=[" ".join(a) for a, _ in USAGE_ERRORS])
def test_usage_errors_are_one_line_exit_2(args: list[str], needle: str) -> None:
    assert_one_line_error(bridge(*args), 2, needle)


def test_options_come_from_mcp_bridge_environment_variables() -> None:
    proc = bridge("serve", "--", sys.executable, env={"MCP_BRIDGE_FRONT_ERA": "1999"})
    assert_one_line_error(proc, 2, "--front-era must be one of")


ORDINARY_ERRORS = [
    (["serve", "--upstream", "ftp://example.com/mcp"], "bad upstream URL"),
    (["serve", "--upstream", "http://127.0.0.1:99999/mcp"], "bad upstream URL"),
    (["serve", "--", "no-such-command-mcp-eras"], "command not found: no-such-command-mcp-eras"),
    (["serve", "--cwd", "/no/such/dir", "--", sys.executable], "--cwd '/no/such/dir' is not a directory"),
    (["serve", "--config", "/no/such/fleet.toml"], "cannot read"),
]


@pytest.mark.parametrize(("args", "needle"), ORDINARY_ERRORS, ids=[" ".join(a) for a, _ in ORDINARY_ERRORS])
def test_ordinary_errors_are_one_line(args: list[str], needle: str) -> None:
    proc = bridge(*args)
    assert_one_line_error(proc, 2 if "--config" in args else 1, needle)


def test_unreachable_upstream_on_stdio_is_one_line_exit_1() -> None:
    url = f"http://127.0.0.1:{peers.free_port()}/mcp"
    proc = bridge("serve", "--stdio", "--log-level", "error", "--upstream", url, stdin="")
    assert_one_line_error(proc, 1, f"cannot reach {url}")


def test_port_in_use_is_one_line_exit_1() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = bridge("serve", "--port", str(port), "--", *tiny_cmd())
    assert_one_line_error(proc, 1, f"cannot listen on 127.0.0.1:{port}: address already in use")


def test_debug_shows_the_traceback() -> None:
    proc = bridge("serve", "--debug", "--upstream", "ftp://example.com/mcp")
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr and "mcp-bridge: bad upstream URL" in proc.stderr


def test_listening_is_logged_after_the_bind_and_ctrl_c_reaps_every_child(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pid_file = tmp_path / "pids"
    with running(["serve", "--port", "0", "--path", "/rpc", "--", *tiny_cmd()], env={"TINY_PID_FILE": str(pid_file)}) as r:
        port = r.wait_listening()
        # The log line came after the bind: the port accepts connections at once.
        resp = httpx.post(f"http://127.0.0.1:{port}/rpc", json=request(1, "tools/call", {"name": "env", "arguments": {"name": "HOME"}}),
                          headers={"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "env",
                                   "Accept": "application/json, text/event-stream"}, timeout=30)
        assert resp.status_code == 200, resp.text
        pids = pids_from(pid_file)
        assert pids and all(alive(p) for p in pids[-1:])
        code, err = r.interrupt()
    assert code in (0, 130), err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert not [p for p in pids_from(pid_file) if alive(p)]


def test_json_logs_in_single_mode() -> None:
    with running(["serve", "--port", "0", "--log-format", "json", "--", *tiny_cmd()]) as r:
        r.wait_listening()
        record = json.loads(r.log[-1])
        assert record["event"] == "listening" and record["port"] > 0 and record["level"] == "info"


def _stdio_call(args: list[str], name: str, env: dict[str, str] | None = None) -> dict:
    """One tools/call through `serve --stdio`; stdin closes (the bridge exits 0) after the answer."""
    r = Running(["serve", "--stdio", "--log-level", "warning", *args, "--", *tiny_cmd()], env=env, stdin=subprocess.PIPE)
    try:
        assert r.proc.stdin is not None and r.proc.stdout is not None
        r.proc.stdin.write(json.dumps(request(7, "tools/call", {"name": "env", "arguments": {"name": name}})) + "\n")
        r.proc.stdin.flush()
        answer = json.loads(r.proc.stdout.readline())
        r.proc.stdin.close()
        assert r.proc.wait(30) == 0
    finally:
        r.close()
    return answer


def test_stdio_child_gets_e_values_cwd_and_only_a_safe_environment(tmp_path) -> None:  # type: ignore[no-untyped-def]
    answer = _stdio_call(["-e", "GREETING=hi there", "--cwd", str(tmp_path), "--no-pass-environment"], "GREETING")
    assert tool_text(answer)["value"] == "hi there"
    assert tool_text(answer)["cwd"] == str(tmp_path)
    secret = _stdio_call(["--no-pass-environment"], "PRODUCT_TEST_SECRET", env={"PRODUCT_TEST_SECRET": "x"})
    assert tool_text(secret)["value"] is None
    passed = _stdio_call(["--pass-environment"], "PRODUCT_TEST_SECRET", env={"PRODUCT_TEST_SECRET": "x"})
    assert tool_text(passed)["value"] == "x"


def test_ctrl_c_on_stdio_is_quiet_and_reaps_the_child(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pid_file = tmp_path / "pids"
    r = Running(["serve", "--stdio", "--", sys.executable, str(TINY)], env={"TINY_PID_FILE": str(pid_file)}, stdin=subprocess.PIPE)
    try:
        assert r.proc.stdin is not None and r.proc.stdout is not None
        r.proc.stdin.write(json.dumps(request(1, "tools/call", {"name": "env", "arguments": {"name": "HOME"}})) + "\n")
        r.proc.stdin.flush()
        assert tool_text(json.loads(r.proc.stdout.readline()))["pid"] > 0
        code, err = r.interrupt()
    finally:
        r.close()
    assert code in (0, 130), err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert pids_from(pid_file) and not [p for p in pids_from(pid_file) if alive(p)]


def test_fleet_cli_is_a_sub_app_without_an_import_cycle() -> None:
    code = ("import mcp_eras.bridge.fleet.cli as f, sys; assert 'mcp_eras.bridge.cli' not in sys.modules; "
            "print(sorted(c.name or c.callback.__name__ for c in f.app.registered_commands))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['canary', 'probe', 'reload', 'verify']"
    assert isinstance(__import__("mcp_eras.bridge.cli", fromlist=["app"]).app, typer.Typer)


def test_fleet_commands_read_mcp_bridge_command_option_variables() -> None:
    proc = bridge("verify", "a", "b", env={"MCP_BRIDGE_VERIFY_ACCEPT": "/no/such/accept.json"})
    assert_one_line_error(proc, 2, "--accept: ")
    # A variable that names no option (e.g. a deployment's own MCP_BRIDGE_VERSION) is not read as --version.
    assert_one_line_error(bridge("serve", "--", sys.executable, "-c", "", env={"MCP_BRIDGE_VERSION": "1.2", "MCP_BRIDGE_PORT": "x"}),
                          2, "MCP_BRIDGE_PORT")

"""mcp_eras.bridge.upstream.prespawn: which invocations start their stdio upstream before the CLI is imported."""

from __future__ import annotations

import os
import sys

import pytest

from mcp_eras.bridge.upstream import prespawn


@pytest.mark.parametrize("argv", [
    ["serve", "--stdio", "--", "server", "--flag"],
    ["serve", "--stdio", "--log-level", "error", "--", "server"],
    ["serve", "--log-level=debug", "--stdio", "--debug", "--log-format", "json", "--", "server"],
])
def test_plain_stdio_invocations_start_early(argv: list[str]) -> None:
    assert prespawn.plain_stdio_command(argv, {}) == argv[argv.index("--") + 1:]


@pytest.mark.parametrize("argv", [
    ["serve", "--", "server"],  # HTTP front
    ["serve", "--stdio", "--upstream-era", "2025-11-25", "--", "server"],  # no probe: another path
    ["serve", "--stdio", "-e", "KEY=1", "--", "server"],  # another environment
    ["serve", "--stdio", "--cwd", "/", "--", "server"],
    ["serve", "--stdio", "--no-pass-environment", "--", "server"],
    ["serve", "--stdio", "--stdio=1", "--", "server"],
    ["serve", "--stdio", "--"],
    ["fleet", "serve", "--stdio", "--", "server"],
    ["--version"],
])
def test_anything_else_is_left_to_the_cli(argv: list[str]) -> None:
    assert prespawn.plain_stdio_command(argv, {}) is None


def test_a_bridge_variable_that_changes_the_child_disables_it() -> None:
    argv = ["serve", "--stdio", "--", "server"]
    assert prespawn.plain_stdio_command(argv, {"MCP_BRIDGE_LOG_LEVEL": "info"}) == ["server"]
    assert prespawn.plain_stdio_command(argv, {"MCP_BRIDGE_UPSTREAM_ERA": "2025-11-25"}) is None


def test_only_the_same_command_environment_and_directory_adopt_it() -> None:
    command = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    prespawn.early(["serve", "--stdio", "--", *command])
    try:
        assert prespawn.take(command, {**os.environ, "EXTRA": "1"}, None) is None
        assert prespawn.take(command, dict(os.environ), "/") is None
        proc = prespawn.take(command, dict(os.environ), None)
        assert proc is not None and proc.poll() is None
        assert prespawn.take(command, dict(os.environ), None) is None, "adopted once"
        proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            assert pipe is not None
            pipe.close()
    finally:
        prespawn.discard()


def test_an_early_process_nobody_adopts_is_stopped() -> None:
    command = [sys.executable, "-c", "import sys; sys.stdin.read()"]
    prespawn.early(["serve", "--stdio", "--", *command])
    (proc,) = prespawn._early.values()
    prespawn.discard()
    assert proc.returncode is not None and not prespawn._early

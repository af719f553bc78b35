"""Cold start: start a stdio upstream before the bridge's own imports, so the server loads while the bridge does.

``mcp-bridge serve --stdio -- COMMAND`` in its plain form (no option that changes the child or the era choice) is
recognized from the raw arguments, before the CLI, pydantic, httpx and the fronts are imported (about a second),
and ``COMMAND`` is started at once with the environment the CLI would give it. The era probe then adopts that
process (``take``: only for the same argv, environment and directory) instead of spawning: the same single child,
started earlier. Anything unrecognized leaves it all to the CLI. Only ``os``/``subprocess`` are imported here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence

VALUED = {"--log-level", "--log-format"}
FLAGS = {"--stdio", "--debug"}
"""The only options the fast path accepts before ``--``: none of them changes the child or the era choice."""
HARMLESS_ENV = {"MCP_BRIDGE_LOG_LEVEL", "MCP_BRIDGE_LOG_FORMAT", "MCP_BRIDGE_DEBUG", "MCP_BRIDGE_STDIO"}

Key = tuple[tuple[str, ...], tuple[tuple[str, str], ...], str | None]

_early: dict[Key, subprocess.Popen[bytes]] = {}


def plain_stdio_command(argv: Sequence[str], environ: Mapping[str, str]) -> list[str] | None:
    """The upstream command of a plain ``serve --stdio ... -- COMMAND`` invocation, else None."""
    if len(argv) < 3 or argv[0] != "serve" or "--" not in argv:
        return None
    split = list(argv).index("--")
    options, command = list(argv[1:split]), list(argv[split + 1:])
    if not command or "--stdio" not in options:
        return None
    if any(k.startswith("MCP_BRIDGE_") and k not in HARMLESS_ENV for k in environ):
        return None
    i = 0
    while i < len(options):
        name = options[i].split("=", 1)[0]
        if name in FLAGS and "=" not in options[i]:
            i += 1
        elif name in VALUED:
            i += 1 if "=" in options[i] else 2
        else:
            return None
    return command


def key(argv: Sequence[str], env: Mapping[str, str], cwd: str | None) -> Key:
    return tuple(argv), tuple(sorted(env.items())), cwd


def early(argv: Sequence[str] | None = None) -> None:
    """Start the upstream of a plain stdio invocation now (never raises: the CLI reports any problem itself)."""
    command = plain_stdio_command(sys.argv[1:] if argv is None else argv, os.environ)
    if command is None:
        return
    env = dict(os.environ)  # the default (--pass-environment, no -e): the child gets the bridge's whole environment
    try:
        # The same pipes and session as ChildProcess gives its children (a terminal's Ctrl-C reaches the bridge only).
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                start_new_session=True)
    except OSError:
        return
    _early[key(command, env, None)] = proc


def take(argv: Sequence[str], env: Mapping[str, str], cwd: str | None) -> subprocess.Popen[bytes] | None:
    """The early process of exactly this command, environment and directory (once), else None."""
    proc = _early.pop(key(argv, env, cwd), None)
    if proc is not None and proc.poll() is not None:
        return None  # it died already: spawn as usual
    return proc


def discard() -> None:
    """Stop early processes nobody adopted (the CLI chose another path): never two children."""
    while _early:
        _, proc = _early.popitem()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()

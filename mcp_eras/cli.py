"""``mcp-eras``: one command that always reaches this project,
whatever else owns the names ``mcp-bridge`` and ``mcp-migrate`` on a machine or an index.

    mcp-eras bridge serve --stdio -- python server.py     (= mcp-bridge ...)
    mcp-eras migrate ./src                                (= mcp-migrate ...)
    mcp-eras auth login https://mcp.example.com/mcp       (sign in to a protected upstream ahead of time)
    mcp-eras --version
"""

from __future__ import annotations

import sys

USAGE = """Usage: mcp-eras [--version] [-h] COMMAND [ARGS]...

  The Model Context Protocol across 2025-11-25 and 2026-07-28.

Commands:
  bridge   Translate MCP between the two revisions, both ways (the mcp-bridge command).
  migrate  Port MCP Python SDK v1 (FastMCP) servers to v2 (the mcp-migrate command).
  auth     Sign in to, list and sign out of OAuth-protected upstream servers (login, status, logout).

Run `mcp-eras COMMAND -h` for a command's options.
"""


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        sys.exit(0)
    if args[0] == "--version":
        from mcp_eras import __version__

        print(f"mcp-eras {__version__}")
        sys.exit(0)
    command, rest = args[0], args[1:]
    if command == "bridge":
        from mcp_eras.bridge.upstream import prespawn

        prespawn.early(rest)  # a plain stdio upstream loads while the bridge imports (as with mcp-bridge)
        from mcp_eras.bridge.cli import main as bridge_main

        bridge_main(rest, prog="mcp-eras bridge")
    elif command == "migrate":
        from mcp_eras.migrate.cli import app, route

        sys.exit(app(args=route(rest), prog_name="mcp-eras migrate"))
    elif command == "auth":
        from mcp_eras.bridge.auth.cli import app as auth_app

        sys.exit(auth_app(args=rest, prog_name="mcp-eras auth"))
    else:
        sys.stderr.write(f"mcp-eras: unknown command {command!r}: want bridge, migrate or auth (see 'mcp-eras -h')\n")
        sys.exit(2)

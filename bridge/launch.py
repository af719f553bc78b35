"""The ``mcp-bridge`` entry point: start a plain stdio upstream first (``upstream.prespawn``), then the CLI."""

from __future__ import annotations


def main() -> None:
    from mcp_eras.bridge.upstream import prespawn

    prespawn.early()
    from mcp_eras.bridge.cli import main as cli_main

    cli_main()

"""mcp-bridge command line (typer)."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, help="Translate MCP between 2025-11-25 and 2026-07-28.")


def main() -> None:
    app()

"""mcp-migrate command line (typer)."""

from __future__ import annotations

import typer

app = typer.Typer(add_completion=False, help="Port MCP Python SDK v1 (FastMCP) code to v2 (MCPServer).")


def main() -> None:
    app()

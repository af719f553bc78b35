"""MCP209 stdio-client-shutdown: ``stdio_client`` no longer kills a gracefully-exited server's children
on POSIX."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP209",
        "stdio-client-shutdown",
        Kind.ADVISORY,
        Safety.REPORT,
        "`stdio_client` no longer kills a gracefully-exited server's child processes on POSIX",
        "stdio_client-shutdown-reworked-a-gracefully-exited-servers-children-are-left-alive-on-posix",
    )
    TRIGGERS = ("stdio_client",)
    CALLEES = frozenset(
        {
            "mcp.client.stdio.stdio_client",
            "mcp.stdio_client",
        }
    )
    MESSAGE = "stdio_client no longer kills the children of a server that exited gracefully (POSIX): reap them yourself if needed"

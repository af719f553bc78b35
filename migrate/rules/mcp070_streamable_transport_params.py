"""MCP070 streamable-transport-params: ``StreamableHTTPTransport(url, headers=, timeout=, ...)`` ->
``StreamableHTTPTransport(url)`` + an httpx2 client."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP070",
        "streamable-transport-params",
        Kind.REQUIRED,
        Safety.REPORT,
        "`StreamableHTTPTransport(url, headers=, timeout=, sse_read_timeout=, auth=)` -> `StreamableHTTPTransport(url)` + httpx2 client",
        "streamablehttptransport-parameters-removed",
    )
    TRIGGERS = ("StreamableHTTPTransport",)
    CALLEES = frozenset({"mcp.client.streamable_http.StreamableHTTPTransport"})
    KEYWORDS = frozenset({"auth", "headers", "sse_read_timeout", "timeout"})
    MESSAGE = "StreamableHTTPTransport takes only the URL now: configure headers/timeouts/auth on an httpx2.AsyncClient"

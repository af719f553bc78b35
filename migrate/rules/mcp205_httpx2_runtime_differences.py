"""MCP205 httpx2-runtime-differences: the SDK's HTTP client is httpx2: OS trust store, new user agent and
logger names."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP205",
        "httpx2-runtime-differences",
        Kind.ADVISORY,
        Safety.REPORT,
        "SDK HTTP client now httpx2: OS trust store, UA `python-httpx2/...`, loggers `httpx2`/`httpcore2`",
        "httpx-and-httpx-sse-replaced-by-httpx2",
    )
    TRIGGERS = ("sse_client", "streamable_http_client", "streamablehttp_client")
    CALLEES = frozenset(
        {
            "mcp.client.sse.sse_client",
            "mcp.client.streamable_http.streamable_http_client",
            "mcp.client.streamable_http.streamablehttp_client",
        }
    )
    MESSAGE = "the SDK's HTTP client is httpx2 now: OS trust store (not certifi), UA python-httpx2, loggers httpx2/httpcore2"

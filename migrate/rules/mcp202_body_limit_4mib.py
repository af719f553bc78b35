"""MCP202 body-limit-4mib: HTTP transports reject request bodies over 4 MiB with 413 by default."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP202",
        "body-limit-4mib",
        Kind.ADVISORY,
        Safety.REPORT,
        "HTTP transports reject request bodies over 4 MiB with 413 by default",
        "streamable-http-request-bodies-are-limited-to-4-mib",
    )
    TRIGGERS = ("_app(", "run_sse_async", "run_streamable_http_async", "transport=")
    METHODS = frozenset(
        {
            "run",
            "run_sse_async",
            "run_streamable_http_async",
            "sse_app",
            "streamable_http_app",
        }
    )
    RECEIVERS = SERVER_CLASS
    MISSING = "max_request_body_size"
    MESSAGE = "HTTP transport: request bodies over 4 MiB now get 413; pass max_request_body_size= if you need more"

    def is_site(self, node: cst.Call) -> bool:
        if not super().is_site(node):
            return False
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "run":
            transport = next((a.value for a in node.args if a.keyword and a.keyword.value == "transport"), None)
            if transport is None and node.args and node.args[0].keyword is None:
                transport = node.args[0].value
            return isinstance(transport, cst.SimpleString) and transport.evaluated_value in ("sse", "streamable-http")
        return True

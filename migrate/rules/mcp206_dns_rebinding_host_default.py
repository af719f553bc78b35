"""MCP206 dns-rebinding-host-default: a mounted ``streamable_http_app()``/``sse_app()`` without ``host=``
turns DNS-rebinding protection on (421 for real hostnames)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP206",
        "dns-rebinding-host-default",
        Kind.ADVISORY,
        Safety.REPORT,
        'Mounted `streamable_http_app()`/`sse_app()` default `host="127.0.0.1"` -> DNS-rebinding protection on',
        "transport-specific-parameters-moved-from-mcpserver-constructor-to-runapp-methods",
    )
    TRIGGERS = ("_app(",)
    METHODS = frozenset(
        {
            "sse_app",
            "streamable_http_app",
        }
    )
    RECEIVERS = SERVER_CLASS
    MISSING = "host"
    MESSAGE = "mounted app without host=: DNS-rebinding protection is on and real hostnames get 421; pass host= (or transport_security=)"

    def is_site(self, node: cst.Call) -> bool:
        keywords = {a.keyword.value for a in node.args if a.keyword}
        if "transport_security" in keywords or not super().is_site(node):
            return False
        # host=/transport_security= moved here from the constructor (MCP003/MCP019) count as passed
        ctor = self.project_ctor(node.func.value, local=True) if isinstance(node.func, cst.Attribute) else None
        return ctor is None or not {"host", "transport_security"} & set(ctor.moved())

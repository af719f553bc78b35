"""MCP015 httpx-objects-to-sdk: httpx objects handed to the SDK must be httpx2 objects in v2.

``http_client=httpx.AsyncClient(...)``, ``auth=<httpx.Auth>``, ``httpx_client_factory=`` passed to
SDK transports, and ``httpx.AsyncClient(auth=<OAuthClientProvider>)``, are reported (the objects
come from another library, so the port needs a look at how they are built and used).
"""

from __future__ import annotations

import libcst as cst

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import CallDetector

SDK_TRANSPORTS = frozenset(
    {
        "mcp.client.sse.sse_client",
        "mcp.client.streamable_http.streamable_http_client",
        "mcp.client.streamable_http.streamablehttp_client",
    }
)
OAUTH = frozenset({"mcp.client.auth.OAuthClientProvider", "mcp.client.auth.oauth2.OAuthClientProvider"})


class Rule(CallDetector):
    META = RuleMeta(
        "MCP015",
        "httpx-objects-to-sdk",
        Kind.REQUIRED,
        Safety.REPORT,
        "httpx objects handed to the SDK must be httpx2 (`http_client=`, `auth=`, `httpx_client_factory`)",
    )
    TRIGGERS = ("httpx",)
    RECEIVERS = OAUTH

    def _httpx(self, node: cst.BaseExpression) -> bool:
        target = node.func if isinstance(node, cst.Call) else node
        return any(n == "httpx" or n.startswith("httpx.") for n in self.qnames(target))

    def visit_Call(self, node: cst.Call) -> None:
        if self.resolves_to(node.func, SDK_TRANSPORTS):
            for arg in node.args:
                key = arg.keyword.value if arg.keyword else None
                if key == "httpx_client_factory" or (key in ("http_client", "auth") and self._httpx(arg.value)):
                    self.report(node, f"{key}= must be an httpx2 object now (import httpx2; same API)", fixed=False)
                    return
        elif self._httpx(node.func):
            for arg in node.args:
                if arg.keyword and arg.keyword.value == "auth" and (
                    (isinstance(arg.value, cst.Call) and self.resolves_to(arg.value.func, OAUTH))
                    or (isinstance(arg.value, cst.Name) and arg.value.value in self.typed)
                ):
                    self.report(node, "OAuthClientProvider is an httpx2.Auth now: use httpx2.AsyncClient here",
                                fixed=False)
                    return

"""MCP071 http-status-errors: ``except httpx.HTTPStatusError`` around the streamable HTTP client is
dead code in v2 (per-call ``MCPError`` instead, and the client is httpx2)."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

STATUS_ERRORS = frozenset({"httpx.HTTPStatusError", "httpx.HTTPError"})


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP071",
        "http-status-errors",
        Kind.REQUIRED,
        Safety.REPORT,
        "`except* httpx.HTTPStatusError` around `streamable_http_client` is dead code; per-call `MCPError` instead",
        "streamable-http-non-2xx-responses-now-surface-as-per-request-json-rpc-errors",
    )
    TRIGGERS = ("HTTPStatusError", "HTTPError")

    def _check(self, node: cst.ExceptHandler | cst.ExceptStarHandler) -> None:
        # only around the streamable HTTP client: an `mcp` import alone (say the `MCPError` a first run
        # wrote) does not make an httpx handler MCP-related
        if node.type is None or "streamable" not in self.ctx.code or not any(
                m == "mcp" or m.startswith("mcp.") for m in self.ctx.table().modules):
            return
        types = node.type.elements if isinstance(node.type, cst.Tuple) else [node.type]
        values = [t.value if isinstance(t, cst.Element) else t for t in types]
        if any(self.resolves_to(v, STATUS_ERRORS) for v in values):
            self.report(node, "HTTP status errors no longer surface here: catch MCPError from each call instead",
                        fixed=False)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._check(node)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._check(node)

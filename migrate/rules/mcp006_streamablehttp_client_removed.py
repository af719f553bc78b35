"""MCP006 streamablehttp-client-removed: ``streamablehttp_client(...)`` -> ``streamable_http_client``.

The name is renamed everywhere (imports alias-aware). A call that passes only the URL (and
``terminate_on_close``) is complete; one that passes headers/timeouts/auth/a client factory gets
a marker: v2 takes those through ``http_client=httpx2.AsyncClient(...)`` (v2 raises TypeError on
the old keywords, so nothing is lost silently).
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import SymbolRename

OLD = "mcp.client.streamable_http.streamablehttp_client"
CLIENT_KWARGS = frozenset({"headers", "timeout", "sse_read_timeout", "auth", "httpx_client_factory"})


class Rule(SymbolRename):
    META = RuleMeta("MCP006", "streamablehttp-client-removed", Kind.REQUIRED, Safety.REVIEW,
                    "`streamablehttp_client(...)` -> `streamable_http_client(url, http_client=httpx2.AsyncClient(...))`")
    RENAMES: ClassVar[dict[str, str]] = {OLD: "mcp.client.streamable_http.streamable_http_client"}

    def visit_Call(self, node: cst.Call) -> None:
        if not self.resolves_to(node.func, {OLD}):
            return
        extra = sorted(a.keyword.value for a in node.args if a.keyword and a.keyword.value in CLIENT_KWARGS)
        positional = [a for a in node.args if a.keyword is None]
        if extra or len(positional) > 1:
            what = ", ".join(extra) or "positional client options"
            self.report(node, f"pass {what} through http_client=httpx2.AsyncClient(headers=..., timeout="
                              "httpx2.Timeout(30, read=300), auth=..., follow_redirects=True)", fixed=False)

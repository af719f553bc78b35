"""MCP050 resource-extra-forbid: ``Resource`` subclasses reject unknown keyword arguments in v2.

v1 silently ignored unknown kwargs (``FunctionResource(uri=u, fn=f, tags=["x"])``); v2's models
use ``extra="forbid"`` and raise. Keyword sets are pinned from mcp 2.3.0
(``mcp.server.mcpserver.resources.types``). ``is_binary`` is MCP051's; ``**kwargs`` cannot be
checked and is left alone.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector

_COMMON = frozenset({"uri", "name", "title", "description", "mime_type", "icons", "annotations", "meta"})
V2_FIELDS: dict[str, frozenset[str]] = {
    "TextResource": _COMMON | {"text"},
    "BinaryResource": _COMMON | {"data"},
    "FunctionResource": _COMMON | {"fn"},
    "FileResource": _COMMON | {"path", "encoding"},
    "HttpResource": _COMMON | {"url"},
    "DirectoryResource": _COMMON | {"path", "recursive", "pattern"},
}
_MODULES = (
    "mcp.server.fastmcp.resources",
    "mcp.server.fastmcp.resources.types",
    "mcp.server.mcpserver.resources",
    "mcp.server.mcpserver.resources.types",
)


class Rule(CallDetector):
    META = RuleMeta(
        "MCP050",
        "resource-extra-forbid",
        Kind.REQUIRED,
        Safety.REPORT,
        "`Resource` subclasses (`TextResource`, `FunctionResource`, `FileResource`, ...) reject unknown kwargs",
        "resource-classes-reject-unknown-keyword-arguments",
    )
    TRIGGERS = tuple(V2_FIELDS)
    CALLEES = frozenset(f"{module}.{cls}" for module in _MODULES for cls in V2_FIELDS)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.is_site(node):
            return
        cls = next((name.rsplit(".", 1)[-1] for name in self.qnames(node.func) if name in self.CALLEES), None)
        if cls is None:
            return
        allowed = V2_FIELDS[cls] | {"is_binary"}  # is_binary is MCP051's finding
        unknown = sorted(a.keyword.value for a in node.args if a.keyword and a.keyword.value not in allowed)
        if unknown:
            self.report(node, f"{cls}() rejects unknown keyword(s) {', '.join(unknown)} in v2 (v1 ignored them): "
                              "drop them, or subclass with model_config = ConfigDict(extra='allow')", fixed=False)

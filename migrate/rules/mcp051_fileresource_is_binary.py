"""MCP051 fileresource-is-binary: ``FileResource(is_binary=...)`` -> ``encoding=`` (unknown kwargs raise in v2).

A literal ``is_binary=True`` becomes ``encoding=None``; ``is_binary=False`` is dropped (text is the
default) with a note that v2 decodes with utf-8-sig rather than the locale; any other value keeps a marker.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector


class Rule(CallDetector):
    META = RuleMeta(
        "MCP051",
        "fileresource-is-binary",
        Kind.REQUIRED,
        Safety.REVIEW,
        "`FileResource(is_binary=...)` -> `encoding=` (unknown kwargs now raise)",
        "fileresourceis_binary-replaced-by-encoding",
    )
    TRIGGERS = ("is_binary",)
    CALLEES = frozenset(
        {
            "mcp.server.fastmcp.resources.FileResource",
            "mcp.server.fastmcp.resources.types.FileResource",
            "mcp.server.mcpserver.resources.FileResource",
            "mcp.server.mcpserver.resources.types.FileResource",
        }
    )
    KEYWORDS = frozenset({"is_binary"})
    MESSAGE = "is_binary= is gone: is_binary=True -> encoding=None; is_binary=False -> drop it (text is the default)"

    def visit_Call(self, node: cst.Call) -> None:
        return None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not self.is_site(original_node):
            return updated_node
        index = next(i for i, a in enumerate(updated_node.args) if a.keyword and a.keyword.value == "is_binary")
        value = updated_node.args[index].value
        flag = value.value if isinstance(value, cst.Name) and value.value in ("True", "False") else None
        if flag is None or not self.can_fix:
            self.report(original_node, self.MESSAGE, fixed=False)
            return updated_node
        args = list(updated_node.args)
        if flag == "True":
            if not self.report(original_node, "is_binary=True -> encoding=None", fixed=True):
                return updated_node
            args[index] = args[index].with_changes(keyword=cst.Name("encoding"), value=cst.Name("None"))
            return updated_node.with_changes(args=args)
        if not self.report(original_node, "is_binary=False dropped (text is the default); v2 decodes utf-8-sig, "
                                          "not the locale encoding", fixed=True, review=True):
            return updated_node
        del args[index]
        if args and index == len(args):
            args[-1] = args[-1].with_changes(comma=updated_node.args[index].comma)
        return updated_node.with_changes(args=args)

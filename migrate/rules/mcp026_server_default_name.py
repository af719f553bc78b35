"""MCP026 server-default-name: ``FastMCP()`` without a name reported ``"FastMCP"``; v2 reports
``"mcp-server"``. The v1 name is passed explicitly so clients keep seeing the same serverInfo."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer
from mcp_eras.migrate.rules.sdk import SERVER_CLASS

V1_CLASSES = frozenset(n for n in SERVER_CLASS if n.endswith("FastMCP"))


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP026",
        "server-default-name",
        Kind.REQUIRED,
        Safety.REVIEW,
        '`FastMCP()` with no name reported `serverInfo.name == "FastMCP"`; v2 reports `"mcp-server"`',
        "default-server-name-changed-from-fastmcp-to-mcp-server",
    )
    TRIGGERS = ("FastMCP(",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not self.resolves_to(original_node.func, V1_CLASSES):
            return updated_node
        if any(a.keyword is None or a.keyword.value == "name" or a.star for a in updated_node.args):
            return updated_node
        if not self.can_fix:
            self.report(original_node, 'pass name="FastMCP" to keep the v1 serverInfo.name', fixed=False)
            return updated_node
        if not self.report(original_node, 'name="FastMCP" kept explicitly (v2 default is "mcp-server")', fixed=True):
            return updated_node
        name = cst.Arg(cst.SimpleString('"FastMCP"'))
        if updated_node.args:
            name = name.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return updated_node.with_changes(args=[name, *updated_node.args])

"""MCP079 tool-input-schema-type: ``Tool(inputSchema={})`` (no ``"type": "object"``) now fails
``tools/list``; a literal schema dict without ``type`` gets ``"type": "object"``."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

TOOL = frozenset({"mcp.types.Tool"})


class Rule(RuleTransformer):
    META = RuleMeta("MCP079", "tool-input-schema-type", Kind.REQUIRED, Safety.SAFE,
                    '`Tool(inputSchema={})` without `"type": "object"` -> add it',
                    "server-handler-results-are-validated-against-the-protocol-schema")
    TRIGGERS = ("Tool(",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not self.resolves_to(original_node.func, TOOL):
            return updated_node
        args = list(updated_node.args)
        for i, arg in enumerate(args):
            if not (arg.keyword and arg.keyword.value in ("inputSchema", "input_schema")):
                continue
            value = arg.value
            if not isinstance(value, cst.Dict):
                continue
            keys = [e.key.evaluated_value for e in value.elements
                    if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)]
            if "type" in keys or any(not isinstance(e, cst.DictElement) for e in value.elements):
                continue
            if not self.report(original_node, 'tool input schema gets "type": "object"', fixed=True):
                continue
            entry = cst.DictElement(cst.SimpleString('"type"'), cst.SimpleString('"object"'))
            if value.elements:
                entry = entry.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            args[i] = arg.with_changes(value=value.with_changes(elements=[entry, *value.elements]))
        return updated_node.with_changes(args=args)

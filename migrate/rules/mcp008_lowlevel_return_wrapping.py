"""MCP008 lowlevel-return-wrapping: v2 lowlevel handlers must return full result models; v1 wrapped
bare lists, dicts and str/bytes. MCP007's adapter keeps v1's wrapping for each decorated handler."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.lowlevel_semantics import LowlevelSemantics


class Rule(LowlevelSemantics):
    META = RuleMeta(
        "MCP008",
        "lowlevel-return-wrapping",
        Kind.REQUIRED,
        Safety.REVIEW,
        "Lowlevel handlers must return full result models (bare lists, dicts, str/bytes no longer wrapped)",
        "lowlevel-server-automatic-return-value-wrapping-removed",
    )
    TRIGGERS = ("Server",)
    KINDS = frozenset({"list_tools", "list_resources", "list_resource_templates", "list_prompts", "call_tool",
                       "read_resource", "completion"})
    KEPT = "v1 result wrapping kept by the MCP007 adapter (bare lists/dicts/str/bytes -> result models)"
    LOST = "v2 no longer wraps bare lists/dicts/str/bytes: return the full result model (List*Result, CallToolResult...)"

"""MCP037 removed-type-aliases: removed ``mcp.types`` aliases -> the names they aliased."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import SymbolRename


class Rule(SymbolRename):
    META = RuleMeta(
        "MCP037", "removed-type-aliases", Kind.REQUIRED, Safety.SAFE,
        'Removed `mcp.types` aliases (`Content`, `ResourceReference`) -> `ContentBlock`, `ResourceTemplateReference`',
        'removed-type-aliases-and-classes',
    )
    RENAMES = {
        "mcp.types.Content": "mcp.types.ContentBlock",
        "mcp.types.ResourceReference": "mcp.types.ResourceTemplateReference",
    }

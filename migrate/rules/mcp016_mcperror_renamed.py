"""MCP016 mcperror-renamed: ``McpError`` -> ``MCPError`` wherever it resolves to the SDK (alias-aware)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import SymbolRename


class Rule(SymbolRename):
    META = RuleMeta(
        "MCP016", "mcperror-renamed", Kind.REQUIRED, Safety.SAFE,
        '`McpError` -> `MCPError`',
        'mcperror-renamed-to-mcperror',
    )
    RENAMES = {
        "mcp.McpError": "mcp.MCPError",
        "mcp.shared.exceptions.McpError": "mcp.shared.exceptions.MCPError",
    }

"""MCP044 fastmcp-error-renamed: ``FastMCPError`` -> ``MCPServerError``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import SymbolRename


class Rule(SymbolRename):
    META = RuleMeta(
        "MCP044", "fastmcp-error-renamed", Kind.REQUIRED, Safety.SAFE,
        '`FastMCPError` -> `MCPServerError`',
        'fastmcp-renamed-to-mcpserver',
    )
    RENAMES = {
        "mcp.server.fastmcp.exceptions.FastMCPError": "mcp.server.mcpserver.exceptions.MCPServerError",
        "mcp.server.mcpserver.exceptions.FastMCPError": "mcp.server.mcpserver.exceptions.MCPServerError",
    }

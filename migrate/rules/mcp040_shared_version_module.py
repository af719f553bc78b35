"""MCP040 shared-version-module: ``mcp.shared.version`` -> ``mcp.types.version`` (imported through ``mcp``,
never ``mcp_types``)."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import SymbolRename


class Rule(SymbolRename):
    META = RuleMeta(
        "MCP040", "shared-version-module", Kind.REQUIRED, Safety.SAFE,
        '`mcp.shared.version` -> `mcp.types.version`',
        'mcptypes-moved-to-the-mcp-types-package',
    )
    RENAMES = {
        "mcp.shared.version": "mcp.types.version",
    }

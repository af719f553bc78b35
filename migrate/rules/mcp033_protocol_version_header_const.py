"""MCP033 protocol-version-header-const: the ``MCP_PROTOCOL_VERSION`` header-name constant moved to
``mcp.shared.inbound``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import SymbolRename


class Rule(SymbolRename):
    META = RuleMeta(
        "MCP033", "protocol-version-header-const", Kind.REQUIRED, Safety.SAFE,
        '`MCP_PROTOCOL_VERSION` header constant -> `mcp.shared.inbound.MCP_PROTOCOL_VERSION_HEADER`',
        'streamablehttptransportprotocol_version-attribute-removed',
    )
    RENAMES = {
        "mcp.client.streamable_http.MCP_PROTOCOL_VERSION": "mcp.shared.inbound.MCP_PROTOCOL_VERSION_HEADER",
        "mcp.client.auth.MCP_PROTOCOL_VERSION": "mcp.shared.inbound.MCP_PROTOCOL_VERSION_HEADER",
        "mcp.client.auth.oauth2.MCP_PROTOCOL_VERSION": "mcp.shared.inbound.MCP_PROTOCOL_VERSION_HEADER",
    }

"""Qualified names of SDK symbols shared by several rules (v1 spellings and their v2 renames:
rules run in ID order, so a later rule may see a file that MCP001 already rewrote)."""

from __future__ import annotations

V1_PKG = "mcp.server.fastmcp"
V2_PKG = "mcp.server.mcpserver"

SERVER_CLASS = frozenset(
    {
        "mcp.server.fastmcp.FastMCP",
        "mcp.server.fastmcp.server.FastMCP",
        "mcp.server.FastMCP",
        "mcp.server.mcpserver.MCPServer",
        "mcp.server.mcpserver.server.MCPServer",
    }
)
CONTEXT_CLASS = frozenset(
    {
        "mcp.server.fastmcp.Context",
        "mcp.server.fastmcp.server.Context",
        "mcp.server.mcpserver.Context",
        "mcp.server.mcpserver.server.Context",
        "mcp.server.mcpserver.context.Context",
    }
)
LOWLEVEL_SERVER = frozenset({"mcp.server.lowlevel.Server", "mcp.server.lowlevel.server.Server", "mcp.server.Server"})


def guide(anchor: str) -> str:
    return f"(migration.md#{anchor})"
SESSION_CLASS = frozenset(
    {
        "mcp.ClientSession",
        "mcp.client.session.ClientSession",
        "mcp.server.session.ServerSession",
        "mcp.Client",
        "mcp.client.Client",
        "mcp.client.client.Client",
        # v1's in-memory helper yields a ClientSession (MCP023 turns it into mcp.Client)
        "mcp.shared.memory.create_connected_server_and_client_session",
    }
)

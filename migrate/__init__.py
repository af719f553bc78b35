"""mcp-migrate: a libcst codemod porting MCP Python SDK v1 (FastMCP) code to v2 (MCPServer)."""

__version__ = "0.1.0"

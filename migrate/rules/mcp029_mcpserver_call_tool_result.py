"""MCP029 mcpserver-call-tool-result: direct ``server.call_tool(...)`` now returns ``CallToolResult``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


class Rule(CallDetector):
    META = RuleMeta(
        "MCP029",
        "mcpserver-call-tool-result",
        Kind.REQUIRED,
        Safety.REPORT,
        "Direct `mcp.call_tool(...)` now returns `CallToolResult`",
        "mcpservercall_tool-returns-calltoolresult",
    )
    TRIGGERS = ("call_tool",)
    METHODS = frozenset({"call_tool"})
    RECEIVERS = SERVER_CLASS
    MESSAGE = "MCPServer.call_tool() returns a CallToolResult now: compare .content/.structured_content, not raw values"

"""MCP010 lowlevel-tool-exceptions: exceptions in lowlevel ``call_tool`` handlers become JSON-RPC
errors in v2 instead of ``isError`` results. MCP007's adapter keeps v1's conversion."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.lowlevel_semantics import LowlevelSemantics


class Rule(LowlevelSemantics):
    META = RuleMeta(
        "MCP010",
        "lowlevel-tool-exceptions",
        Kind.REQUIRED,
        Safety.REVIEW,
        "Exceptions in lowlevel `call_tool` handlers become JSON-RPC errors instead of `isError` results",
        "lowlevel-server-tool-handler-exceptions-no-longer-become-calltoolresultis_errortrue",
    )
    TRIGGERS = ("call_tool",)
    KINDS = frozenset({"call_tool"})
    KEPT = "exceptions still become isError results through the MCP007 adapter (raise MCPError for a protocol error)"
    LOST = "exceptions now answer a JSON-RPC error: catch them and return CallToolResult(is_error=True, ...)"

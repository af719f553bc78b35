"""MCP066 session-group-args: ``ClientSessionGroup.call_tool(name, args=...)`` -> ``arguments=``."""

from __future__ import annotations

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import KeywordEdit


class Rule(KeywordEdit):
    META = RuleMeta(
        "MCP066", "session-group-args", Kind.REQUIRED, Safety.SAFE,
        '`ClientSessionGroup.call_tool(name, args=...)` -> `arguments=`',
        '',
    )
    TRIGGERS = ("args=",)
    METHODS = frozenset({"call_tool"})
    RECEIVERS = frozenset({"mcp.ClientSessionGroup", "mcp.client.session_group.ClientSessionGroup"})
    RENAME_KW = {"args": "arguments"}
    MESSAGE = "`args=` -> `arguments=`"

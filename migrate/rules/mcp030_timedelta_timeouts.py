"""MCP030 timedelta-timeouts: client timeouts take float seconds, not ``timedelta``."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import KeywordEdit, dotted
from mcp_eras.migrate.rules.sdk import SESSION_CLASS


class Rule(KeywordEdit):
    META = RuleMeta(
        "MCP030", "timedelta-timeouts", Kind.REQUIRED, Safety.SAFE,
        'Client timeouts take float seconds, not `timedelta`',
        'timeouts-take-float-seconds-instead-of-timedelta',
    )
    TRIGGERS = ("timedelta",)
    CALLEES = frozenset(
        {
            "mcp.ClientSession",
            "mcp.client.session.ClientSession",
            "mcp.client.sse.sse_client",
            "mcp.client.streamable_http.streamablehttp_client",
            "mcp.client.streamable_http.streamable_http_client",
        }
    )
    METHODS = frozenset({"call_tool", "send_request"})
    RECEIVERS = SESSION_CLASS
    RENAME_KW = {"read_timeout_seconds": "read_timeout_seconds", "timeout": "timeout",
                 "sse_read_timeout": "sse_read_timeout"}
    MESSAGE = "`timedelta` timeout -> float seconds"

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if not any(a.keyword and a.keyword.value in self.RENAME_KW and self._is_timedelta(a.value)
                   for a in original_node.args):
            return updated_node
        return super().leave_Call(original_node, updated_node)

    def _is_timedelta(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Call) and self.resolves_to(node.func, {"datetime.timedelta"})

    def edit_value(self, keyword: str, value: cst.BaseExpression) -> cst.BaseExpression:
        name = dotted(value.func) if isinstance(value, cst.Call) else None
        if not isinstance(value, cst.Call) or name is None or name.rsplit(".", 1)[-1] != "timedelta":
            return value
        if (len(value.args) == 1 and value.args[0].keyword and value.args[0].keyword.value == "seconds"
                and isinstance(value.args[0].value, cst.Integer | cst.Float)):
            number = value.args[0].value
            return cst.Float(f"{float(number.value.replace('_', ''))!r}")
        return cst.Call(func=cst.Attribute(value=value, attr=cst.Name("total_seconds")))

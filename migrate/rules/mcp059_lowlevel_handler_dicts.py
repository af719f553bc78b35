"""MCP059 lowlevel-handler-dicts: ``server.request_handlers``/``notification_handlers`` dicts were removed."""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER


class Rule(CallDetector):
    META = RuleMeta(
        "MCP059",
        "lowlevel-handler-dicts",
        Kind.REQUIRED,
        Safety.REPORT,
        '`server.request_handlers[...]` -> `add_request_handler` / `get_request_handler("tools/list")`',
        "lowlevel-server-request_handlers-and-notification_handlers-attributes-removed",
    )
    TRIGGERS = ("request_handlers", "notification_handlers")
    RECEIVERS = LOWLEVEL_SERVER
    MESSAGE = "request_handlers/notification_handlers were removed: use add_request_handler()/get_request_handler(method)"

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        if original_node.attr.value in ("request_handlers", "notification_handlers") and self.receiver_typed(original_node.value):
            self.report(original_node, self.MESSAGE, fixed=False)
        return updated_node

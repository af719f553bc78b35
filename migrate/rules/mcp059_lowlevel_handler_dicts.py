"""MCP059 lowlevel-handler-dicts: ``server.request_handlers``/``notification_handlers`` dicts were removed
(python-sdk ``docs/migration.md`` § "Lowlevel Server: request_handlers and notification_handlers
attributes removed").

Membership tests keyed by a v1 request/notification class are provable:
``ListToolsRequest in server.request_handlers`` -> ``server.get_request_handler("tools/list") is not None``
(``not in`` -> ``is None``; notifications through ``get_notification_handler``). Reads, ``.get()`` and
assignments are reported: v2 stores ``HandlerEntry`` objects keyed by method and registers handlers
with ``add_request_handler(method, params_type, handler)`` taking ``(ctx, params)``.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER

# method of each v1 request/notification class a server handles (``mcp.types`` 1.29, ``method`` literal)
METHODS = {
    "CallToolRequest": "tools/call", "CompleteRequest": "completion/complete", "GetPromptRequest": "prompts/get",
    "InitializeRequest": "initialize", "ListPromptsRequest": "prompts/list",
    "ListResourceTemplatesRequest": "resources/templates/list", "ListResourcesRequest": "resources/list",
    "ListToolsRequest": "tools/list", "PingRequest": "ping", "ReadResourceRequest": "resources/read",
    "SetLevelRequest": "logging/setLevel", "SubscribeRequest": "resources/subscribe",
    "UnsubscribeRequest": "resources/unsubscribe", "CancelledNotification": "notifications/cancelled",
    "InitializedNotification": "notifications/initialized", "ProgressNotification": "notifications/progress",
    "RootsListChangedNotification": "notifications/roots/list_changed",
}
GETTER = {"request_handlers": "get_request_handler", "notification_handlers": "get_notification_handler"}


class Rule(CallDetector):
    META = RuleMeta(
        "MCP059",
        "lowlevel-handler-dicts",
        Kind.REQUIRED,
        Safety.SAFE,
        '`server.request_handlers[...]` -> `add_request_handler` / `get_request_handler("tools/list")`',
        "lowlevel-server-request_handlers-and-notification_handlers-attributes-removed",
    )
    TRIGGERS = ("request_handlers", "notification_handlers")
    RECEIVERS = LOWLEVEL_SERVER
    MESSAGE = ("request_handlers/notification_handlers were removed: v2 keys handlers by method "
               "(get_request_handler(method), add_request_handler(method, params_type, handler(ctx, params)))")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.rewritten: set[int] = set()  # ids of the dict attributes a membership rewrite consumed

    def visit_Call(self, node: cst.Call) -> None:
        return None

    def _dict(self, node: cst.BaseExpression) -> cst.Attribute | None:
        if isinstance(node, cst.Attribute) and node.attr.value in GETTER and self.receiver_typed(node.value):
            return node
        return None

    def _method(self, key: cst.BaseExpression) -> str | None:
        for name in self.qnames(key):
            module, _, cls = name.rpartition(".")
            if module == "mcp.types" and cls in METHODS:
                return METHODS[cls]
        return None

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1:
            return
        target = node.comparisons[0]
        found = self._dict(target.comparator)
        if found is not None and isinstance(target.operator, cst.In | cst.NotIn) and self._method(node.left):
            self.rewritten.add(id(found))

    def leave_Comparison(self, original_node: cst.Comparison, updated_node: cst.Comparison) -> cst.BaseExpression:
        if len(original_node.comparisons) != 1:
            return updated_node
        target = original_node.comparisons[0]
        found = self._dict(target.comparator)
        method = self._method(original_node.left) if found is not None else None
        if found is None or method is None or id(found) not in self.rewritten:
            return updated_node
        if not self.report(original_node, f"membership -> {GETTER[found.attr.value]}({method!r})", fixed=True):
            self.rewritten.discard(id(found))
            self.report(found, self.MESSAGE, fixed=False)
            return updated_node
        call = cst.Call(func=found.with_changes(attr=cst.Name(GETTER[found.attr.value])),
                        args=[cst.Arg(cst.SimpleString(f'"{method}"'))])
        operator = cst.IsNot() if isinstance(target.operator, cst.In) else cst.Is()
        return updated_node.with_changes(
            left=call, comparisons=[cst.ComparisonTarget(operator=operator, comparator=cst.Name("None"))])

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """``anything.request_handlers[types.CallToolRequest]``: keyed by an SDK request class, the dict is
        the lowlevel server's even when the receiver's type is not proven."""
        value = node.value
        if (isinstance(value, cst.Attribute) and value.attr.value in GETTER and self._dict(value) is None
                and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
                and self._method(node.slice[0].slice.value)):
            self.report(node, self.MESSAGE, fixed=False)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.Attribute:
        if self._dict(original_node) is not None and id(original_node) not in self.rewritten:
            self.report(original_node, self.MESSAGE, fixed=False)
        return updated_node

"""MCP065 list-cursor-param: ``session.list_tools(cursor=c)`` -> ``params=PaginatedRequestParams(cursor=c)``.

Only on a provable ``ClientSession`` (``mcp.Client.list_*`` keeps ``cursor=``; ``params=`` raises
TypeError there); a positional cursor counts too.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import add_imports
from mcp_eras.migrate.rules.base import CallDetector

CLIENT_SESSION = frozenset({"mcp.ClientSession", "mcp.client.session.ClientSession"})
IMPORT = "from mcp.types import PaginatedRequestParams\n"


class Rule(CallDetector):
    META = RuleMeta(
        "MCP065",
        "list-cursor-param",
        Kind.REQUIRED,
        Safety.SAFE,
        "`session.list_tools(cursor=c)` -> `session.list_tools(params=PaginatedRequestParams(cursor=c))`",
        "cursor-parameter-removed-from-clientsession-list-methods",
    )
    TRIGGERS = ("list_",)
    METHODS = frozenset({"list_prompts", "list_resource_templates", "list_resources", "list_tools"})
    RECEIVERS = CLIENT_SESSION
    MESSAGE = "cursor= was removed: pass params=types.PaginatedRequestParams(cursor=...)"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fixed = False

    def visit_Call(self, node: cst.Call) -> None:
        return None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not updated_node.args or not self.is_site(original_node):
            return updated_node
        index = next((i for i, a in enumerate(updated_node.args) if a.keyword and a.keyword.value == "cursor"), None)
        if index is None and updated_node.args[0].keyword is None and not updated_node.args[0].star:
            index = 0
        if index is None:
            return updated_node
        if not self.can_fix:
            self.report(original_node, self.MESSAGE, fixed=False)
            return updated_node
        if not self.report(original_node, "cursor -> params=PaginatedRequestParams(cursor=...)", fixed=True):
            return updated_node
        arg = updated_node.args[index]
        params = cst.Call(cst.Name("PaginatedRequestParams"),
                          [cst.Arg(arg.value, keyword=cst.Name("cursor"), equal=arg.equal if arg.keyword else
                                   cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))])
        args = list(updated_node.args)
        args[index] = arg.with_changes(keyword=cst.Name("params"), value=params,
                                       equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
        self.fixed = True
        return updated_node.with_changes(args=args)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return add_imports(updated_node, [IMPORT]) if self.fixed else updated_node

"""MCP023 memory-helper-removed: ``create_connected_server_and_client_session(server, ...)`` ->
``Client(server, mode="legacy", ...)`` (in-process client over the v1 initialize handshake).

The import is rewritten (alias kept) and each call gets ``mode="legacy"``. Results read through
the client are v2 models (snake_case fields), hence the review marker on each call. A file that also
uses the helper other than by calling it (``factory = create_connected_server_and_client_session``)
is left as written and every use is marked: renaming the import would leave that reference unbound.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import RuleTransformer, dotted

OLD = "mcp.shared.memory.create_connected_server_and_client_session"


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP023",
        "memory-helper-removed",
        Kind.REQUIRED,
        Safety.REVIEW,
        '`create_connected_server_and_client_session(server)` -> `Client(server, mode="legacy")`',
        "create_connected_server_and_client_session-removed",
    )
    TRIGGERS = ("create_connected_server_and_client_session",)
    UNBOUND = ("v2 has no `create_connected_server_and_client_session`: this file also uses it other than "
               "by calling it, so nothing was rewritten; use `mcp.Client(server, mode=\"legacy\")`")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.bare: set[int] = set()  # ids of the names that use the helper other than by calling it

    def visit_Module(self, node: cst.Module) -> None:
        name = OLD.rsplit(".", 1)[1]
        skip = set()
        for current in walk(node):
            if isinstance(current, cst.Call):
                skip.add(id(current.func))
            elif isinstance(current, cst.ImportFrom | cst.Import | cst.Attribute):
                skip.update(id(n) for n in walk(current) if n is not current or isinstance(current, cst.Attribute))
                if isinstance(current, cst.Attribute):
                    skip.discard(id(current.value))
            elif isinstance(current, cst.Name) and current.value == name and id(current) not in skip:
                self.bare.add(id(current))

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self.bare and self.resolves_to(node, {OLD}):
            self.report(node, self.UNBOUND, fixed=False)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
        if dotted(updated_node.module) != "mcp.shared.memory" or isinstance(updated_node.names, cst.ImportStar):
            return updated_node
        names = list(updated_node.names)
        ours = [a for a in names if dotted(a.name) == OLD.rsplit(".", 1)[1]]
        if not ours or len(ours) != len(names) or not self.can_fix or self.bare:
            if ours:
                self.report(original_node, "import `Client` from `mcp` instead", fixed=False)
            return updated_node
        if not self.report(original_node, "`create_connected_server_and_client_session` -> `mcp.Client`", fixed=True):
            return updated_node
        alias = ours[0].with_changes(name=cst.Name("Client"))
        return updated_node.with_changes(module=cst.Name("mcp"), names=[alias])

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not self.resolves_to(original_node.func, {OLD}) or not self.can_fix:
            return updated_node
        if self.bare:
            self.report(original_node, self.UNBOUND, fixed=False)
            return updated_node
        if any(a.keyword and a.keyword.value == "mode" for a in updated_node.args):
            return updated_node
        if not self.report(
            original_node, "now an `mcp.Client` in legacy mode: results are v2 models (snake_case attributes)", fixed=True, review=True
        ):
            return updated_node
        func = updated_node.func
        if isinstance(func, cst.Name) and func.value == OLD.rsplit(".", 1)[1]:
            func = cst.Name("Client")
        args = list(updated_node.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        mode = cst.Arg(
            cst.SimpleString('"legacy"'),
            keyword=cst.Name("mode"),
            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
        )
        return updated_node.with_changes(func=func, args=[*args, mode])

"""MCP003 ctor-transport-kwargs: transport kwargs move from the constructor to the start sites.

The whole-project index (phase 1) knows every construction and every start site of a server
instance, across modules. Both ends of the move are decided by the same pure ``plan()`` so
that the constructor file and the start-site files agree without seeing each other.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.index import ServerCtor
from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.import_names import drop_unused_module
from mcp_eras.migrate.rules._lib.imports import drop_unused
from mcp_eras.migrate.rules._lib.transport import ALL_KWARGS, ANCHOR, StartSiteEditor, plan
from mcp_eras.migrate.rules._lib.transport_defaults import HELPER_NAME, add_helper, defaults_call, helper_position
from mcp_eras.migrate.rules.sdk import SERVER_CLASS


def _names(node: cst.CSTNode) -> list[cst.Name]:
    """Every name read in ``node`` (attribute names excluded)."""
    found: list[cst.Name] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.append(current)
        elif isinstance(current, cst.Attribute):
            stack.append(current.value)
        else:
            stack.extend(current.children)
    return found


class Rule(StartSiteEditor):
    META = RuleMeta(
        "MCP003", "ctor-transport-kwargs", Kind.REQUIRED, Safety.REVIEW,
        "Transport kwargs move from the server constructor to run()/*_app()/run_*_async()", ANCHOR,
    )
    TRIGGERS = ("run", "_app", "MCPServer", "FastMCP")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.moved_names: set[str] = set()  # names read by the kwargs that moved to another module's start site

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if self.resolves_to(original_node.func, SERVER_CLASS):
            return self._constructor(original_node, updated_node)
        return super().leave_Call(original_node, updated_node)

    def moved_here(self, ctor: ServerCtor) -> dict[str, str]:
        return ctor.kwargs

    # ------------------------------------------------------------------ constructor end
    def _constructor(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        present = [a.keyword.value for a in updated.args if a.keyword and a.keyword.value in ALL_KWARGS]
        if not present:
            return updated
        parent = self.parent()
        var = None
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target,
                                                                                       cst.Name):
            var = parent.targets[0].target.value
        ctor = self.ctx.index.server_named(self.ctx.path, var, self._next("ctor", var)) if var else None
        if ctor is None:
            self.report(original, f"move {', '.join(present)} to run()/streamable_http_app()/sse_app(): the "
                                  "server is not bound to a plain name, so its start sites are unknown", fixed=False)
            return updated
        decision = plan(ctor, self.ctx.index)
        if not decision.movable and self.can_fix and self._fallback(original, updated, ctor, var):
            return updated.with_changes(args=self._without_transport(updated))
        if not decision.movable or not self.can_fix:
            self.report(original, decision.reason or "move the transport kwargs to the start call", fixed=False)
            return updated
        notes = list(dict.fromkeys(decision.review))
        if decision.dropped:
            notes.append(f"dropped {', '.join(decision.dropped)}: no start site uses them (v1 ignored them there)")
        if not self.report(original, "; ".join(notes) or "transport kwargs moved to the start call", fixed=True,
                           review=bool(notes)):
            return updated
        args = self._without_transport(updated)
        if not decision.stash:  # the values now live at the start sites: their imports may go unused here
            self.moved_names.update(n.value for a in updated.args if a.keyword and a.keyword.value in ALL_KWARGS
                                    for n in _names(a.value))
        if decision.stash and var is not None:
            moved = [a for a in updated.args if a.keyword and a.keyword.value in ALL_KWARGS]
            items = ", ".join(f'"{a.keyword.value}": {cst.Module([]).code_for_node(a.value)}'  # type: ignore[union-attr]
                              for a in moved)
            self.stash_line = cst.parse_statement(f"{var}._mcp_v1_transport = {{{items}}}\n")
        return updated.with_changes(args=args)

    @staticmethod
    def _without_transport(call: cst.Call) -> list[cst.Arg]:
        args = [a for a in call.args if not (a.keyword and a.keyword.value in ALL_KWARGS)]
        if args and args[-1] is not call.args[-1]:
            args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
        return args

    def _fallback(self, original: cst.Call, updated: cst.Call, ctor: ServerCtor, var: str) -> bool:
        """No start site in the project (issue 31): v2's constructor would raise ``TypeError`` at
        import, so the kwargs become defaults of the server's start methods (``transport_defaults``)
        when the constructor is a plain ``var = MCPServer(...)`` statement below the file's imports."""
        if self.ctx.index.sites_for(ctor) or not ctor.kwargs:
            return False
        statements = self.ctx.statements
        top = statements[0] if statements else None
        module = self.ctx.wrapper.module if self.ctx.wrapper is not None else None
        if module is None or top not in module.body or module.body.index(top) < helper_position(module):
            return False
        if any(s.name.value == HELPER_NAME for s in module.body if isinstance(s, cst.FunctionDef)):
            return False  # a name of the project's own: never shadow it
        moved = [a for a in updated.args if a.keyword and a.keyword.value in ALL_KWARGS]
        names = ", ".join(f"`{a.keyword.value}`" for a in moved if a.keyword)
        pronoun = "it" if len(moved) == 1 else "them"
        if not self.report(original, f"no start call was found: pass {names} where the server starts "
                                     f"(`{HELPER_NAME}` applies {pronoun} until then)", fixed=True, review=True):
            return False
        self.stash_line = defaults_call(var, moved)
        self.needs_helper = True
        return True

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        updated_node = super().leave_Module(original_node, updated_node)
        imports = self.ctx.table().imports
        for name in sorted(self.moved_names):
            for qualified in sorted(imports.get(name, ())):
                if qualified == name:  # `import os`
                    updated_node = drop_unused_module(updated_node, name)
                elif qualified.endswith(f".{name}") and not qualified.startswith("."):  # `from m import name`
                    updated_node = drop_unused(updated_node, {qualified[: -len(name) - 1]: frozenset({name})})
        return add_helper(updated_node) if getattr(self, "needs_helper", False) else updated_node

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.BaseStatement]:
        stash = getattr(self, "stash_line", None)
        if stash is None:
            return updated_node
        self.stash_line = None
        return cst.FlattenSentinel([updated_node, stash])

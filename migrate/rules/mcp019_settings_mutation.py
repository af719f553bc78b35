"""MCP019 settings-mutation: ``server.settings.<transport field> = v`` -> passed to the start sites.

v2's ``Settings`` has no transport fields (assigning one raises). The index merges these writes
with the constructor kwargs (MCP003 adds them to every start site); this rule deletes the write
when the move is possible and leaves a marker otherwise.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.index import TRANSPORT_KWARGS, ServerCtor
from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.transport import ANCHOR, StartSiteEditor, plan
from mcp_eras.migrate.rules._lib.transport_defaults import HELPER_NAME, add_helper, defaults_call


class Rule(StartSiteEditor):
    META = RuleMeta(
        "MCP019", "settings-mutation", Kind.REQUIRED, Safety.REVIEW,
        "`server.settings.<transport field> = v` -> pass it to run()/*_app()/run_*_async()", ANCHOR,
    )
    TRIGGERS = (".settings.", "run", "_app")  # both ends: the write and every start site it moves to

    def moved_here(self, ctor: ServerCtor) -> dict[str, str]:
        return ctor.settings

    def _sdk_receiver(self, receiver: cst.BaseExpression) -> bool:
        """``<receiver>.settings`` is likely an SDK server's: the file imports the SDK, or the receiver
        is a name imported from elsewhere (a server module the index does not hold)."""
        table = self.ctx.table()
        if any(m == "mcp" or m.startswith("mcp.") for m in table.modules):
            return True
        return isinstance(receiver, cst.Name) and receiver.value in table.imports

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        updated_node = super().leave_Module(original_node, updated_node)
        return add_helper(updated_node) if getattr(self, "needs_helper", False) else updated_node

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        if len(updated_node.body) != 1 or not isinstance(updated_node.body[0], cst.Assign):
            return updated_node
        assign = updated_node.body[0]
        if len(assign.targets) != 1:
            return updated_node
        target = assign.targets[0].target
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Attribute)
                and target.value.attr.value == "settings" and target.attr.value in TRANSPORT_KWARGS):
            return updated_node
        field = target.attr.value
        receiver = cst.Module([]).code_for_node(target.value.value)
        ctor = next((c for c in self.ctx.index.servers.values()
                     if c.path == self.ctx.path and c.var == receiver and field in c.settings), None)
        if ctor is None:
            if self._sdk_receiver(target.value.value):  # a server built where the index cannot see
                self.report(original_node, f"pass {field}= to the call that starts this server: v2's settings "
                                           "have no transport fields (assigning one raises)", fixed=False)
            return updated_node
        decision = plan(ctor, self.ctx.index)
        if not decision.movable and self.can_fix and not self.ctx.index.sites_for(ctor):
            # no start call in the project: the value becomes a default of the server's start methods
            if self.report(original_node, f"no start call was found: pass {field}= where the server starts "
                                          f"(`{HELPER_NAME}` applies it until then)", fixed=True, review=True):
                self.needs_helper = True
                call = defaults_call(receiver, [cst.Arg(assign.value, keyword=cst.Name(field))])
                return updated_node.with_changes(body=call.body)
            return updated_node
        if not decision.movable or not self.can_fix:
            self.report(original_node, f"pass {field}= to run()/*_app() instead: "
                                       f"{decision.reason or 'v2 Settings has no transport fields'}", fixed=False)
            return updated_node
        # the statement disappears, so there is nowhere to keep a marker: the value moves verbatim
        if self.report(original_node, f"`settings.{field}` passed to the start call instead", fixed=True):
            return cst.RemovalSentinel.REMOVE
        return updated_node

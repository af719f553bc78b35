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


class Rule(StartSiteEditor):
    META = RuleMeta(
        "MCP019", "settings-mutation", Kind.REQUIRED, Safety.REVIEW,
        "`server.settings.<transport field> = v` -> pass it to run()/*_app()/run_*_async()", ANCHOR,
    )
    TRIGGERS = (".settings.", "run", "_app")  # both ends: the write and every start site it moves to

    def moved_here(self, ctor: ServerCtor) -> dict[str, str]:
        return ctor.settings

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
            return updated_node
        decision = plan(ctor, self.ctx.index)
        if not decision.movable or not self.can_fix:
            self.report(original_node, f"pass {field}= to run()/*_app() instead: "
                                       f"{decision.reason or 'v2 Settings has no transport fields'}", fixed=False)
            return updated_node
        # the statement disappears, so there is nowhere to keep a marker: the value moves verbatim
        if self.report(original_node, f"`settings.{field}` passed to the start call instead", fixed=True):
            return cst.RemovalSentinel.REMOVE
        return updated_node

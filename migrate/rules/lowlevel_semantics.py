"""Shared base of MCP008/MCP009/MCP010: v1 lowlevel semantics that MCP007's adapter reproduces.

Each rule reports (as fixed, no marker) every decorated v1 handler whose behaviour it covers, so
the report says which handlers rely on the adapter for that behaviour; when the adapter is not
applied (``--safe-only`` or MCP007 ignored) the site gets a marker explaining what v2 changes.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from mcp_eras.migrate.rules._lib.lowlevel import LowlevelTracking


class LowlevelSemantics(LowlevelTracking):
    KINDS: ClassVar[frozenset[str]] = frozenset()
    KEPT: ClassVar[str] = ""  # what the adapter keeps (fixed)
    LOST: ClassVar[str] = ""  # what v2 does without it (manual)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            found = self._decorator_kind(decorator)
            if found is None or found[1] not in self.KINDS:
                continue
            _, kind, call = found
            if any(a.keyword and a.keyword.value == "validate_input" for a in call.args) and self.skip_unvalidated(call):
                return
            adapted = self.can_fix and "MCP007" in self.ctx.selected
            self.report(node, self.KEPT if adapted else self.LOST, fixed=adapted)
            return

    def skip_unvalidated(self, call: cst.Call) -> bool:
        return False

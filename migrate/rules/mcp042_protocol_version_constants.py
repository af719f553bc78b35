"""MCP042 protocol-version-constants: ``LATEST_PROTOCOL_VERSION`` changed meaning (it is the newest
era, ``"2026-07-28"``, which no ``initialize`` handshake accepts); ``SUPPORTED_PROTOCOL_VERSIONS`` is
deprecated and a tuple that includes the new era (python-sdk ``docs/migration.md`` §
"SUPPORTED_PROTOCOL_VERSIONS deprecated; LATEST_PROTOCOL_VERSION changed meaning").

v1's values are v2's handshake constants: ``LATEST_PROTOCOL_VERSION`` -> ``LATEST_HANDSHAKE_VERSION``
and ``SUPPORTED_PROTOCOL_VERSIONS`` -> ``HANDSHAKE_PROTOCOL_VERSIONS`` (both in ``mcp.types.version``),
imports and uses alike, so every use keeps v1's value (review: a use that meant "the newest
protocol" may want ``LATEST_PROTOCOL_VERSION`` again). A file that treats
``SUPPORTED_PROTOCOL_VERSIONS`` as a list (``+ [...]``, ``.append``, item assignment) is reported for
that name: the v2 constant is a tuple.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import SymbolRename, build_dotted, dotted

LATEST = "mcp.types.version.LATEST_HANDSHAKE_VERSION"
SUPPORTED = "mcp.types.version.HANDSHAKE_PROTOCOL_VERSIONS"
OLD_SUPPORTED = frozenset({"mcp.shared.version.SUPPORTED_PROTOCOL_VERSIONS", "mcp.types.version.SUPPORTED_PROTOCOL_VERSIONS"})
LIST_METHODS = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse"})


class Rule(SymbolRename):
    META = RuleMeta(
        "MCP042",
        "protocol-version-constants",
        Kind.REQUIRED,
        Safety.REVIEW,
        '`LATEST_PROTOCOL_VERSION` is now "2026-07-28"; `SUPPORTED_PROTOCOL_VERSIONS` deprecated and a tuple',
        "supported_protocol_versions-deprecated-latest_protocol_version-changed-meaning",
    )
    TRIGGERS = ("PROTOCOL_VERSION",)
    RENAMES = {
        "mcp.types.LATEST_PROTOCOL_VERSION": LATEST,
        "mcp.shared.version.LATEST_PROTOCOL_VERSION": LATEST,
        "mcp.types.version.LATEST_PROTOCOL_VERSION": LATEST,  # the import as MCP040 rewrote it in this pass
        "mcp.shared.version.SUPPORTED_PROTOCOL_VERSIONS": SUPPORTED,
        "mcp.types.version.SUPPORTED_PROTOCOL_VERSIONS": SUPPORTED,
    }
    LIST_MESSAGE = ("SUPPORTED_PROTOCOL_VERSIONS is a tuple in v2 and includes 2026-07-28: use "
                    "HANDSHAKE_PROTOCOL_VERSIONS (mcp.types.version) and tuple operations")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.as_list = False
        self.list_uses: set[int] = set()

    @classmethod
    def wants(cls, code: str) -> bool:
        return "PROTOCOL_VERSION" in code

    def _target(self, qualified: str) -> str | None:
        if not self.can_fix:
            return None  # --safe-only: reported by visit_Name instead
        if self.as_list and any(qualified == o or qualified.startswith(o + ".") for o in OLD_SUPPORTED):
            return None
        return super()._target(qualified)

    def visit_Module(self, node: cst.Module) -> None:
        for current in walk(node):
            if self._list_use(current):
                self.as_list = True
                self.list_uses.add(id(current))

    def visit_Name(self, node: cst.Name) -> None:
        if not self.can_fix and any(super(Rule, self)._target(q) for q in self.qnames(node)):
            self.report(node, "protocol version constant: v1's value is LATEST_HANDSHAKE_VERSION / "
                              "HANDSHAKE_PROTOCOL_VERSIONS (mcp.types.version) in v2", fixed=False)

    def _report_list_use(self, node: cst.CSTNode) -> None:
        if id(node) in self.list_uses:
            self.report(node, self.LIST_MESSAGE, fixed=False)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._report_list_use(node)

    def visit_Call(self, node: cst.Call) -> None:
        self._report_list_use(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._report_list_use(node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._report_list_use(node)

    def _supported(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Name | cst.Attribute) and bool(self.qnames(node) & OLD_SUPPORTED)

    def _list_use(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BinaryOperation) and (self._supported(node.left) or self._supported(node.right)):
            return isinstance(node.left, cst.List) or isinstance(node.right, cst.List)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            return node.func.attr.value in LIST_METHODS and self._supported(node.func.value)
        if isinstance(node, cst.AssignTarget | cst.AugAssign):
            target = node.target
            return isinstance(target, cst.Subscript) and self._supported(target.value) or (
                isinstance(node, cst.AugAssign) and self._supported(target))
        return False

    def report(self, node: cst.CSTNode, message: str, *, fixed: bool, review: bool = False) -> bool:
        if fixed and "LATEST_PROTOCOL_VERSION` ->" in message and isinstance(node, cst.Name | cst.Attribute):
            review = True  # a use that meant "the newest protocol" wants LATEST_PROTOCOL_VERSION back
            message += " (v1's value; LATEST_PROTOCOL_VERSION now names the stateless 2026-07-28 era)"
        return super().report(node, message, fixed=fixed, review=review)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        """``types.LATEST_PROTOCOL_VERSION`` (``import mcp.types as types``) -> ``types.version.LATEST_HANDSHAKE_VERSION``:
        the new module is a submodule of the one the alias names, so no second import is needed."""
        for name in self.qnames(original_node):
            new = self._target(name)
            if new is None or new == name:
                continue
            old_module, new_module = name.rsplit(".", 1)[0], new.rsplit(".", 1)[0]
            spelled = dotted(original_node.value)
            if spelled and spelled != old_module and new_module.startswith(old_module + "."):
                if self.report(original_node, f"`{name}` -> `{new}`", fixed=True):
                    sub = new_module[len(old_module) + 1:]
                    return build_dotted(f"{spelled}.{sub}.{new.rsplit('.', 1)[1]}")
                return updated_node
        return super().leave_Attribute(original_node, updated_node)

"""MCP068 shared-session-removed: ``mcp.shared.session`` is gone in v2 (python-sdk ``docs/migration.md``
§ "ClientSession now runs on JSONRPCDispatcher; BaseSession removed").

Names that moved are imported from their v2 home: ``ProgressFnT`` from ``mcp.shared.dispatcher``,
``SessionMessage`` from ``mcp.shared.message`` and the protocol types v1 re-exported there
(``RequestId``, ``ServerNotification``, ...) from ``mcp.types``. A ``message_handler`` annotation
spelled ``RequestResponder[ServerRequest, ClientResult] | ServerNotification | Exception`` becomes
``IncomingMessage`` (``mcp.client``; server requests no longer reach that handler). What has no v2
counterpart (``RequestResponder``, ``BaseSession``, ``ServerMessageMetadata``, the session TypeVars)
is reported.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.import_names import add_name
from mcp_eras.migrate.rules._lib.imports import drop_unused
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import SymbolRename, dotted

OLD = "mcp.shared.session"
TYPES = ("CancelledNotification", "ClientNotification", "ClientRequest", "ClientResult", "ErrorData", "JSONRPCError",
         "JSONRPCMessage", "JSONRPCNotification", "JSONRPCRequest", "JSONRPCResponse", "ProgressNotification",
         "RequestId", "RequestParams", "ServerNotification", "ServerRequest", "ServerResult", "INVALID_PARAMS",
         "CONNECTION_CLOSED")
RESPONDER = f"{OLD}.RequestResponder"
NOTIFICATION = frozenset({"mcp.types.ServerNotification", f"{OLD}.ServerNotification"})


class Rule(SymbolRename):
    META = RuleMeta(
        "MCP068",
        "shared-session-removed",
        Kind.REQUIRED,
        Safety.SAFE,
        "`mcp.shared.session` removed: moved names imported from their v2 modules; `RequestResponder`, "
        "`BaseSession` reported",
        "clientsession-now-runs-on-jsonrpcdispatcher-basesession-removed",
    )
    TRIGGERS = ("mcp.shared.session", "mcp.shared import session")
    RENAMES = {
        f"{OLD}.ProgressFnT": "mcp.shared.dispatcher.ProgressFnT",
        f"{OLD}.SessionMessage": "mcp.shared.message.SessionMessage",
        **{f"{OLD}.{name}": f"mcp.types.{name}" for name in TYPES},
    }
    MESSAGE = ("mcp.shared.session was removed (RequestResponder, BaseSession, ServerMessageMetadata): "
               "type message handlers with mcp.client.IncomingMessage and port session subclasses by hand")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.incoming = False

    @classmethod
    def wants(cls, code: str) -> bool:
        return any(t in code for t in cls.TRIGGERS)

    def _removed(self, qualified: str) -> bool:
        return (qualified == OLD or qualified.startswith(OLD + ".")) and self._target(qualified) is None

    def visit_Name(self, node: cst.Name) -> None:
        if any(self._removed(q) for q in self.qnames(node)) and not self._in_handler_union():
            self.report(node, self.MESSAGE, fixed=False)

    def _in_handler_union(self) -> bool:
        return any(isinstance(n, cst.BinaryOperation) and self._handler_union(n) for n in self._nodes)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine) -> cst.BaseStatement | cst.FlattenSentinel:
        stmt = original_node.body[0] if len(original_node.body) == 1 else None
        if isinstance(stmt, cst.ImportFrom) and not stmt.relative and dotted(stmt.module) == OLD and (
                isinstance(stmt.names, cst.ImportStar)
                or any(self._target(f"{OLD}.{dotted(a.name)}") is None for a in stmt.names)):
            if not self.incoming or not self._only_responder(stmt):
                self.report(original_node, self.MESSAGE, fixed=False)
        return super().leave_SimpleStatementLine(original_node, updated_node)

    def _only_responder(self, stmt: cst.ImportFrom) -> bool:
        assert not isinstance(stmt.names, cst.ImportStar)
        return [dotted(a.name) for a in stmt.names if self._target(f"{OLD}.{dotted(a.name)}") is None] == [
            "RequestResponder"] and self.ctx.code.count("RequestResponder") == 2

    # ---------------------------------------------------------------- message_handler annotation
    def _members(self, node: cst.BaseExpression) -> list[cst.BaseExpression]:
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            return [*self._members(node.left), *self._members(node.right)]
        return [node]

    def _handler_union(self, node: cst.BinaryOperation) -> bool:
        members = self._members(node)
        if len(members) != 3:
            return False
        kinds = set()
        for member in members:
            base = member.value if isinstance(member, cst.Subscript) else member
            names = self.qnames(base)
            if RESPONDER in names:
                kinds.add("responder")
            elif names & NOTIFICATION:
                kinds.add("notification")
            elif isinstance(member, cst.Name) and member.value == "Exception" and not self.qnames(member):
                kinds.add("exception")
        return kinds == {"responder", "notification", "exception"}

    def visit_Module(self, node: cst.Module) -> None:
        self.incoming = any(isinstance(n, cst.Annotation) and isinstance(n.annotation, cst.BinaryOperation)
                            and self._handler_union(n.annotation) for n in walk(node))

    def leave_Annotation(self, original_node: cst.Annotation, updated_node: cst.Annotation) -> cst.Annotation:
        value = original_node.annotation
        if isinstance(value, cst.BinaryOperation) and self._handler_union(value) and self.report(
                original_node, "RequestResponder[...] | ServerNotification | Exception -> IncomingMessage "
                               "(mcp.client)", fixed=True):
            return updated_node.with_changes(annotation=cst.Name("IncomingMessage"))
        return updated_node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self.incoming:
            return updated_node
        updated = add_name(updated_node, "mcp.client", "IncomingMessage")
        return drop_unused(updated, {OLD: frozenset({"RequestResponder"}),
                                     "mcp.types": frozenset({"ServerNotification", "ServerRequest", "ClientResult"})})

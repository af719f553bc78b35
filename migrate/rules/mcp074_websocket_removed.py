"""MCP074 websocket-removed: the WebSocket transport was removed.

Every use is marked. A module-level ``from mcp.client.websocket import ...`` (or ``mcp.server.websocket``)
is also guarded, so that the module still imports under v2 (a library that only offers the transport
among others keeps working for the others): under v2 each imported name becomes a function that raises
``RuntimeError`` saying why, under v1 the import is unchanged.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import Detector, dotted

GUARD = '''try:
    {statement}
except ImportError:  # the WebSocket transport was removed in mcp 2 (mcp-migrate MCP074)
{stubs}'''
STUB = '''
    def {name}(*args, **kwargs):
        raise RuntimeError("mcp 2 removed the WebSocket transport: use streamable HTTP")
'''


class Rule(Detector):
    META = RuleMeta(
        "MCP074",
        "websocket-removed",
        Kind.REQUIRED,
        Safety.REVIEW,
        "WebSocket transport removed (`mcp.client.websocket`, `mcp.server.websocket`): uses marked, "
        "a module-level import guarded",
        "websocket-transport-removed",
    )
    TRIGGERS = ("websocket",)
    PREFIXES = ("mcp.client.websocket", "mcp.server.websocket")
    MESSAGE = "the WebSocket transport was removed in v2: switch to streamable HTTP"
    GUARDED = ("the WebSocket transport was removed in v2: switch to streamable HTTP (the import is guarded "
               "so the module still imports; these names raise under v2)")

    def visit_Try(self, node: cst.Try) -> bool:
        return not _guard(node)  # a guard this rule wrote: already marked above the `try`

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self.can_fix:
            return updated_node
        body = list(updated_node.body)
        for index, stmt in enumerate(body):
            names = _guardable(stmt)
            if not names:
                continue
            assert isinstance(stmt, cst.SimpleStatementLine)
            code = cst.Module([]).code_for_node(stmt.with_changes(leading_lines=[])).strip()
            stubs = "".join(STUB.format(name=name) for name in names)
            guard = cst.parse_statement(GUARD.format(statement=code, stubs=stubs.lstrip("\n")))
            lines = [ln for ln in stmt.leading_lines
                     if not (ln.comment and ln.comment.value.startswith("# TODO(mcp-migrate MCP074)"))]
            marker = cst.EmptyLine(comment=cst.Comment(f"# TODO(mcp-migrate MCP074): {self.GUARDED}"))
            body[index] = guard.with_changes(leading_lines=[*lines, marker] if self.wants_marker() else lines)
        return updated_node.with_changes(body=body)


def _guardable(stmt: cst.CSTNode) -> list[str]:
    """The names bound by a lone ``from mcp.<client|server>.websocket import a, b as c`` statement."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return []
    node = stmt.body[0]
    if (not isinstance(node, cst.ImportFrom) or node.relative or isinstance(node.names, cst.ImportStar)
            or dotted(node.module) not in Rule.PREFIXES):
        return []
    return [(a.asname.name.value if a.asname and isinstance(a.asname.name, cst.Name) else dotted(a.name) or "")
            for a in node.names]


def _guard(node: cst.Try) -> bool:
    """A guard this rule wrote (a program's own ``try``/``except ImportError`` is still visited and marked)."""
    return (len(node.body.body) == 1 and bool(_guardable(node.body.body[0])) and len(node.handlers) == 1
            and isinstance(node.handlers[0].type, cst.Name) and node.handlers[0].type.value == "ImportError"
            and isinstance(node.handlers[0].body, cst.IndentedBlock)
            and all(isinstance(s, cst.FunctionDef) for s in node.handlers[0].body.body))

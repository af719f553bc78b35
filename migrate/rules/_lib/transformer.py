"""``RuleTransformer`` (the base of every Python rule: name resolution, reporting, markers) and
``Combined`` (runs several rules in one traversal).

A Python rule is a libcst transformer run over one file. It resolves names through the file's
import table or ``QualifiedNameProvider`` (never by matching text), reports every site through
``report()`` and lets the base class attach the ``# TODO(mcp-migrate MCPxxx): ...`` marker to the
enclosing statement.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import libcst as cst
from libcst.metadata import PositionProvider, QualifiedName, QualifiedNameProvider, QualifiedNameSource

from mcp_eras.migrate.model import Finding, Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.context import HIDDEN, MARKER_PREFIX, FileContext

STATEMENT_TYPES = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
# concrete classes: ``type(node) in`` is far cheaper than isinstance() against libcst's ABCs
STATEMENT_CLASSES = frozenset(
    {cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.With, cst.Try,
     cst.TryStar, cst.Match}
)


class RuleTransformer(cst.CSTTransformer):
    """Base of every Python rule. Subclasses set ``META`` and may set ``TRIGGERS``.

    ``TRIGGERS`` are plain substrings; a file containing none of them is not parsed for this
    rule at all (the cheap pre-filter that keeps large trees fast).
    """

    META: ClassVar[RuleMeta]
    TRIGGERS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, ctx: FileContext) -> None:
        super().__init__()
        self.ctx = ctx
        self._stmt_stack = ctx.statements
        self._nodes = ctx.nodes
        self._pending = ctx.pending

    # ---------------------------------------------------------------- applicability
    @classmethod
    def wants(cls, code: str) -> bool:
        return not cls.TRIGGERS or any(t in code for t in cls.TRIGGERS)

    @property
    def can_fix(self) -> bool:
        """False when ``--safe-only`` forbids this rule's (review-class) edits."""
        return self.META.safety is Safety.SAFE or (self.META.safety is Safety.REVIEW and not self.ctx.safe_only)

    # ---------------------------------------------------------------- name resolution
    def qnames(self, node: cst.CSTNode) -> set[str]:
        """Imported qualified names of ``node`` (locals and builtins excluded).

        Answered from the file's import table unless the file binds an imported name locally
        too; then from libcst's scope analysis (see ``mcp_eras.migrate.resolve``)."""
        table = self.ctx.table()
        if not table.ambiguous:
            return table.qualified(node)
        found: Iterable[QualifiedName] = self.ctx.lookup(QualifiedNameProvider, node, ())
        return {q.name for q in found if q.source is QualifiedNameSource.IMPORT}

    def bound(self, node: cst.CSTNode) -> bool:
        """True when ``node`` resolves to anything at all (a local, an import or a builtin)."""
        table = self.ctx.table()
        if not table.ambiguous:
            return table.bound(node)
        return bool(self.ctx.lookup(QualifiedNameProvider, node))

    def parent(self) -> cst.CSTNode | None:
        """Parent (original tree) of the node being visited or left."""
        return self._nodes[-2] if len(self._nodes) > 1 else None

    def resolves_to(self, node: cst.CSTNode, names: Iterable[str]) -> bool:
        wanted = set(names)
        return bool(self.qnames(node) & wanted)

    def span(self, node: cst.CSTNode) -> tuple[int, int] | None:
        """(first, last) line of ``node``'s statement (a statement's first decorator counts)."""
        ctx = self.ctx
        if ctx.stmt_lines is not None:
            target = node if type(node) in STATEMENT_CLASSES else (ctx.statements[-1] if ctx.statements else None)
            return ctx.positions.get(id(target)) if target is not None else None
        pos = ctx.lookup(PositionProvider, node)
        return None if pos is None else (pos.start.line, pos.end.line)

    def line_of(self, node: cst.CSTNode) -> tuple[int, int]:
        span = self.span(node)
        return (span[0], 1) if span else (0, 0)

    # ---------------------------------------------------------------- reporting
    def _ignored(self, node: cst.CSTNode) -> bool:
        if not self.ctx.ignores:
            return False
        keys = {self.META.id, self.META.slug}
        lines: set[int] = set()
        for target in (node, *(self._stmt_stack[-1:])):
            span = self.span(target)
            if span is not None:
                lines.update(range(span[0] - 1, span[1] + 1))
        return any(keys & self.ctx.ignores.get(line, set()) for line in lines)

    def report(self, node: cst.CSTNode, message: str, *, fixed: bool, review: bool = False) -> bool:
        """Record a site. Returns False when an inline ignore comment covers it (do not edit).

        ``fixed`` says the caller is about to rewrite the site; ``review`` asks for a marker
        even so (AUTO+NOTE). Unfixed sites always get a marker.
        """
        if self._ignored(node):
            return False
        line, column = self.line_of(node)
        status = "review" if fixed and review else ("fixed" if fixed else "manual")
        if status != "fixed" and self._stmt_stack:
            pending = self._pending.get(id(self._stmt_stack[-1]), [])
            if any(note.lstrip(HIDDEN).startswith(f"{MARKER_PREFIX}{self.META.id})") for note in pending):
                return True  # one marker and one report entry per statement
        self.ctx.findings.append(
            Finding(self.META.id, self.META.slug, self.ctx.path, line, column, message, status,
                    str(self.META.safety))
        )
        if status != "fixed" and self._stmt_stack and not self._marked_in_source(self._stmt_stack[-1]):
            key = id(self._stmt_stack[-1])
            notes = self._pending.setdefault(key, [])
            text = f"{MARKER_PREFIX}{self.META.id}): {message}"
            if not self.wants_marker():
                text = HIDDEN + text  # reported, deduplicated, but not written into the source
            if text not in notes:
                notes.append(text)
        return True

    def wants_marker(self) -> bool:
        """``--markers``: every open finding, only those the user must act on (advisories go to the
        report only), or none."""
        mode = self.ctx.markers
        return mode == "all" or (mode == "action" and self.META.kind is not Kind.ADVISORY)

    def _marked_in_source(self, stmt: cst.CSTNode) -> bool:
        """True when the comment block right above ``stmt`` already holds this rule's marker (a
        module's first statement keeps its comments in the module header, not in leading_lines)."""
        span = self.span(stmt)
        if span is None:
            return False
        if self.ctx.lines is None:
            self.ctx.lines = self.ctx.code.splitlines()
        wanted = f"{MARKER_PREFIX}{self.META.id})"
        index = span[0] - 2
        while index >= 0 and self.ctx.lines[index].lstrip().startswith("#"):
            if self.ctx.lines[index].lstrip().startswith(wanted):
                return True
            index -= 1
        return False

    # ---------------------------------------------------------------- marker plumbing
    def on_visit(self, node: cst.CSTNode) -> bool:
        self._nodes.append(node)
        if isinstance(node, STATEMENT_TYPES):
            self._stmt_stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        return self.finish(original_node, super().on_leave(original_node, updated_node))

    def finish(self, original_node: cst.CSTNode, result: Any) -> Any:
        """Bookkeeping after ``original_node`` was left (by this rule or, in a combined pass, by an
        earlier rule that changed the node's type): pop the stacks and attach pending markers."""
        self._nodes.pop()
        if isinstance(original_node, STATEMENT_TYPES):
            self._stmt_stack.pop()
            notes = self._pending.pop(id(original_node), None)
            if notes:
                result = self._attach(result, notes)
        return result

    def _attach(self, result: Any, notes: list[str]) -> Any:
        if isinstance(result, cst.FlattenSentinel):
            nodes = list(result.nodes)
            # the statement itself, not one a rule put before it (a second run finds the sites there)
            own = next((i for i, n in enumerate(nodes) if id(n) not in self.ctx.inserted), 0)
            if nodes:
                nodes[own] = self._attach(nodes[own], notes)
            return cst.FlattenSentinel(nodes)
        if not hasattr(result, "leading_lines"):
            return result
        existing = {line.comment.value.split(":", 1)[0] for line in result.leading_lines if line.comment is not None}
        fresh = [n for n in notes if not n.startswith(HIDDEN) and n.split(":", 1)[0] not in existing]
        if not fresh:
            return result
        lines = [*result.leading_lines, *(cst.EmptyLine(comment=cst.Comment(note)) for note in fresh)]
        return result.with_changes(leading_lines=lines)


def _split_imports(result: Any) -> bool:
    """True for the lines an import statement became (a rule moved some of its names elsewhere)."""
    return isinstance(result, cst.FlattenSentinel) and all(
        isinstance(n, cst.SimpleStatementLine) and all(isinstance(b, cst.Import | cst.ImportFrom) for b in n.body)
        for n in result.nodes)


def _own_method(cls: type, name: str) -> Any:
    method = getattr(cls, name, None)
    return None if method is None or method is getattr(cst.CSTTransformer, name, None) else method


class Combined(cst.CSTTransformer):
    """Runs several rules in one traversal: one parse and one metadata resolution per file.

    Only the ``visit_<Type>``/``leave_<Type>`` methods a rule defines are called (looked up once
    per node type). Each node is offered to the rules in ID order; a rule's ``leave_*`` sees the
    node as updated by the rules before it, as long as they kept its type. A rule whose
    ``visit_*`` returned False does not see that subtree. The node/statement stacks and the
    pending markers are shared (``FileContext``), so markers are attached once per statement.
    """

    def __init__(self, rules: list[RuleTransformer]) -> None:
        super().__init__()
        self.rules = rules
        self.ctx = rules[0].ctx
        self.skipping: list[cst.CSTNode | None] = [None] * len(rules)
        self._visit: dict[str, list[tuple[int, Any]]] = {}
        self._leave: dict[str, list[tuple[int, Any]]] = {}

    def _table(self, name: str, kind: str) -> list[tuple[int, Any]]:
        cache = self._visit if kind == "visit" else self._leave
        found = cache.get(name)
        if found is None:
            found = []
            for i, rule in enumerate(self.rules):
                method = _own_method(type(rule), f"{kind}_{name}")
                if method is not None:
                    found.append((i, method))
            cache[name] = found
        return found

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        return None  # no rule uses visit_<Node>_<attribute> hooks

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        return None

    def on_visit(self, node: cst.CSTNode) -> bool:
        ctx = self.ctx
        ctx.nodes.append(node)
        if type(node) in STATEMENT_CLASSES:
            ctx.statements.append(node)
            if ctx.stmt_lines is not None:
                if ctx.visited_statements < len(ctx.stmt_lines):
                    ctx.positions[id(node)] = ctx.stmt_lines[ctx.visited_statements]
                ctx.visited_statements += 1
        for i, method in self._table(type(node).__name__, "visit"):
            if self.skipping[i] is None and method(self.rules[i], node) is False:
                self.skipping[i] = node
        return True

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        result: Any = updated_node
        for i, method in self._table(type(original_node).__name__, "leave"):
            skipped = self.skipping[i]
            if skipped is not None and skipped is not original_node:
                continue
            if type(result) is type(original_node):
                result = method(self.rules[i], original_node, result)
            elif _split_imports(result):  # an import line an earlier rule split: every rule still sees each part
                parts: list[cst.CSTNode] = []
                for part in result.nodes:
                    out = method(self.rules[i], original_node, part)
                    parts.extend(out.nodes if isinstance(out, cst.FlattenSentinel) else [out])
                result = cst.FlattenSentinel(parts)
        for i, skipped in enumerate(self.skipping):
            if skipped is original_node:
                self.skipping[i] = None
        self.ctx.nodes.pop()
        if type(original_node) in STATEMENT_CLASSES:
            self.ctx.statements.pop()
            notes = self.ctx.pending.pop(id(original_node), None)
            if notes:
                result = self.rules[0]._attach(result, notes)
        return result

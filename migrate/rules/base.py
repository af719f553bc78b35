"""Base classes shared by every rule module.

A Python rule is a libcst transformer run over one file. It resolves names through
``QualifiedNameProvider`` (never by matching text), reports every site through ``report()`` and
lets the base class attach the ``# TODO(mcp-migrate MCPxxx): ...`` marker to the enclosing
statement. A manifest rule edits dependency manifests (TOML, requirements, setup.cfg).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import libcst as cst
from libcst._metadata_dependent import LazyValue
from libcst.metadata import (
    BaseMetadataProvider,
    MetadataWrapper,
    PositionProvider,
    QualifiedName,
    QualifiedNameProvider,
    QualifiedNameSource,
)

from migrate.index import SERVER_CLASSES as SERVER_NAMES
from migrate.index import ProjectIndex, ServerCtor, absolute_module
from migrate.model import Finding, Kind, RuleMeta, Safety
from migrate.resolve import ImportTable

IGNORE_RE = re.compile(r"#\s*mcp-migrate:\s*ignore\[([^\]]*)\]\s*(.*)$")
MARKER_PREFIX = "# TODO(mcp-migrate "
HIDDEN = "\0"  # prefix of a pending note that is reported but not written (see ``wants_marker``)


def ignore_table(code: str) -> dict[int, set[str]]:
    """Line number -> rule IDs/slugs named by an inline ``# mcp-migrate: ignore[...] <reason>``.

    A suppression must say why: a comment without a reason after the brackets is not honoured."""
    table: dict[int, set[str]] = {}
    if "mcp-migrate:" not in code:
        return table
    for number, line in enumerate(code.splitlines(), start=1):
        match = IGNORE_RE.search(line)
        if match and match.group(2).strip():
            table[number] = {part.strip() for part in match.group(1).split(",") if part.strip()}
    return table


@dataclass
class FileContext:
    """Everything a rule may know about the file it transforms."""

    path: str
    module: str
    code: str
    index: ProjectIndex
    safe_only: bool = False
    findings: list[Finding] = field(default_factory=list)
    ignores: dict[int, set[str]] = field(default_factory=dict)
    selected: frozenset[str] = frozenset()  # IDs of the rules in this run
    wrapper: MetadataWrapper | None = None
    markers: str = "all"  # which findings leave a source marker: "all", "action" (not advisories), "none"
    lines: list[str] | None = None
    # traversal state shared by every rule of the combined pass
    nodes: list[cst.CSTNode] = field(default_factory=list)
    statements: list[cst.CSTNode] = field(default_factory=list)
    pending: dict[int, list[str]] = field(default_factory=dict)
    # statement lines from the stdlib parser (see resolve.statement_lines), assigned in visiting order
    stmt_lines: list[tuple[int, int]] | None = None
    positions: dict[int, tuple[int, int]] = field(default_factory=dict)
    visited_statements: int = 0
    _resolved: dict[type, Any] = field(default_factory=dict)
    _table: ImportTable | None = None

    def metadata(self, provider: type[BaseMetadataProvider[Any]]) -> Any:
        """Node -> value mapping of ``provider``, resolved on first use and shared by all rules.

        Scope analysis is the dominant cost of a pass, so a file on which no rule ever asks for a
        qualified name never pays for it."""
        if provider not in self._resolved:
            assert self.wrapper is not None
            self._resolved[provider] = self.wrapper.resolve(provider)
        return self._resolved[provider]

    def table(self) -> ImportTable:
        if self._table is None:
            assert self.wrapper is not None
            self._table = ImportTable(self.wrapper.module, self.code, self.module, self.path.endswith("__init__.py"))
        return self._table

    def lookup(self, provider: type[BaseMetadataProvider[Any]], node: cst.CSTNode, default: Any = None) -> Any:
        value = self.metadata(provider).get(node, default)
        return value() if isinstance(value, LazyValue) else value


def dotted(node: cst.BaseExpression | None) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


def build_dotted(text: str) -> cst.Name | cst.Attribute:
    parts = text.split(".")
    expr: cst.Name | cst.Attribute = cst.Name(parts[0])
    for part in parts[1:]:
        expr = cst.Attribute(value=expr, attr=cst.Name(part))
    return expr


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
        too; then from libcst's scope analysis (see ``migrate.resolve``)."""
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
            if nodes:
                nodes[0] = self._attach(nodes[0], notes)
            return cst.FlattenSentinel(nodes)
        if not hasattr(result, "leading_lines"):
            return result
        existing = {line.comment.value.split(":", 1)[0] for line in result.leading_lines if line.comment is not None}
        fresh = [n for n in notes if not n.startswith(HIDDEN) and n.split(":", 1)[0] not in existing]
        if not fresh:
            return result
        lines = [*result.leading_lines, *(cst.EmptyLine(comment=cst.Comment(note)) for note in fresh)]
        return result.with_changes(leading_lines=lines)


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


class Detector(RuleTransformer):
    """A report-only rule: every node whose imported qualified name is in ``NAMES`` (or starts
    with one of ``PREFIXES``) gets a marker and a report entry; nothing is rewritten."""

    NAMES: ClassVar[frozenset[str]] = frozenset()
    PREFIXES: ClassVar[tuple[str, ...]] = ()
    MESSAGE: ClassVar[str] = ""

    def _matches(self, node: cst.CSTNode) -> bool:
        for name in self.qnames(node):
            if name in self.NAMES or any(name == p or name.startswith(p + ".") for p in self.PREFIXES):
                return True
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            name = dotted(alias.name) or ""
            if name in self.NAMES or any(name == p or name.startswith(p + ".") for p in self.PREFIXES):
                self.report(node, self.MESSAGE, fixed=False)
                break
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        module = dotted(node.module) or ""
        names = [] if isinstance(node.names, cst.ImportStar) else [dotted(a.name) or "" for a in node.names]
        full = [f"{module}.{n}" for n in names] + [module]
        if any(f in self.NAMES or any(f == p or f.startswith(p + ".") for p in self.PREFIXES) for f in full):
            self.report(node, self.MESSAGE, fixed=False)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if self._matches(node):
            self.report(node, self.MESSAGE, fixed=False)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if self._matches(node):
            self.report(node, self.MESSAGE, fixed=False)
            return False
        return True


class CallDetector(RuleTransformer):
    """A report-only rule over calls (and decorated handlers) with receiver provenance.

    A call is a site when its callee resolves to one of ``CALLEES`` or it is a method call named
    in ``METHODS`` on a receiver provably of one of ``RECEIVERS`` (a parameter annotated with such
    a class, a name assigned from its constructor or bound by ``async with X(...) as name``, or an
    attribute chain rooted in one). ``KEYWORDS`` restricts sites to calls passing one of them;
    ``MISSING`` to calls lacking that keyword.
    """

    CALLEES: ClassVar[frozenset[str]] = frozenset()
    METHODS: ClassVar[frozenset[str]] = frozenset()
    RECEIVERS: ClassVar[frozenset[str]] = frozenset()
    KEYWORDS: ClassVar[frozenset[str]] = frozenset()
    MISSING: ClassVar[str | None] = None
    MESSAGE: ClassVar[str] = ""

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.typed: set[str] = set()

    def _track(self, name: cst.BaseExpression | None, value: cst.BaseExpression | None) -> None:
        if not isinstance(name, cst.Name) or value is None:
            return
        if (isinstance(value, cst.Call) and self.resolves_to(value.func, self.RECEIVERS)) or self.project_server(value):
            self.typed.add(name.value)

    def project_server(self, node: cst.BaseExpression) -> bool:
        """True when ``node`` is, through the project index, a server built somewhere in the project:
        a name imported from the module that constructs it (``from .app import mcp``, re-exports
        followed) or a call of a factory function that returns it (``create_server()``)."""
        return bool(self.RECEIVERS & SERVER_NAMES) and self.project_ctor(node) is not None

    def project_ctor(self, node: cst.BaseExpression, local: bool = False) -> ServerCtor | None:
        """The constructor of the project server ``node`` evaluates to (see ``project_server``);
        ``local`` also tries a plain name as a module-level name of this file."""
        index = self.ctx.index
        if not index.servers:
            return None
        suffix = ""
        if isinstance(node, cst.Call) and not node.args:
            node, suffix = node.func, "()"
        if not isinstance(node, cst.Name | cst.Attribute):
            return None
        names = {self.project_name(q) for q in self.qnames(node)}
        if local and not names and isinstance(node, cst.Name):
            names = {f"{self.ctx.module}.{node.value}"}
        for name in sorted(names):
            ctor = index.ctor_for(index.canonical(name + suffix), self.ctx.path)
            if ctor is not None:
                return ctor
        return None

    def project_name(self, qualified: str) -> str:
        """``qualified`` with a leading-dot relative module (libcst's spelling) made absolute."""
        if not qualified.startswith("."):
            return qualified
        level = len(qualified) - len(qualified.lstrip("."))
        rest = qualified[level:]
        return absolute_module(self.ctx.module, self.ctx.path.endswith("__init__.py"), level, rest or None)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._track(target.target, node.value)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._track(node.asname.name, node.item)

    def visit_Param(self, node: cst.Param) -> None:
        annotation = node.annotation.annotation if node.annotation else None
        if annotation is None:
            return
        base = annotation.value if isinstance(annotation, cst.Subscript) else annotation
        if self.resolves_to(base, self.RECEIVERS):
            self.typed.add(node.name.value)

    def receiver_typed(self, node: cst.BaseExpression) -> bool:
        if self.project_server(node):
            return True
        while isinstance(node, cst.Attribute):
            node = node.value
        return isinstance(node, cst.Name) and node.value in self.typed

    def is_site(self, node: cst.Call) -> bool:
        func = node.func
        hit = bool(self.CALLEES) and self.resolves_to(func, self.CALLEES)
        if not hit and isinstance(func, cst.Attribute) and func.attr.value in self.METHODS:
            hit = self.receiver_typed(func.value)
        if not hit:
            return False
        keywords = {a.keyword.value for a in node.args if a.keyword}
        if self.KEYWORDS and not keywords & self.KEYWORDS:
            return False
        return not (self.MISSING and self.MISSING in keywords)

    def visit_Call(self, node: cst.Call) -> None:
        if self.is_site(node):
            self.report(node, self.MESSAGE, fixed=False)


class SubclassDetector(RuleTransformer):
    """Report classes deriving from one of ``BASES`` that define a method in ``OVERRIDES``."""

    BASES: ClassVar[frozenset[str]] = frozenset()
    OVERRIDES: ClassVar[frozenset[str]] = frozenset()
    MESSAGE: ClassVar[str] = ""

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if not any(self.resolves_to(base.value, self.BASES) for base in node.bases):
            return
        defined = {
            stmt.name.value for stmt in node.body.body if isinstance(stmt, cst.FunctionDef)
        }
        if not self.OVERRIDES or defined & self.OVERRIDES:
            self.report(node, self.MESSAGE, fixed=False)


class SymbolRename(RuleTransformer):
    """Rename symbols and modules by qualified name (longest key wins), alias-aware.

    ``RENAMES`` maps an old qualified name (a symbol ``pkg.mod.Name`` or a module ``pkg.mod``)
    to its new one. Imports are rewritten (split when their names move to different modules);
    uses bound by the import without an alias follow the new name; spelled-out attribute chains
    are rewritten whole; an attribute access through a module alias whose module changes gets a
    marker (the alias would need a second import).
    """

    RENAMES: ClassVar[dict[str, str]] = {}

    def _target(self, qualified: str) -> str | None:
        best = ""
        for key in self.RENAMES:
            if (qualified == key or qualified.startswith(key + ".")) and len(key) > len(best):
                best = key
        return self.RENAMES[best] + qualified[len(best):] if best else None

    @classmethod
    def wants(cls, code: str) -> bool:
        return any(key.rsplit(".", 1)[-1] in code for key in cls.RENAMES)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        names = []
        for alias in updated_node.names:
            old = dotted(alias.name) or ""
            new = self._target(old)
            if new and new != old and self.report(original_node, f"`{old}` -> `{new}`", fixed=True):
                alias = alias.with_changes(name=build_dotted(new))
            names.append(alias)
        return updated_node.with_changes(names=names)

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> Any:
        if len(updated_node.body) != 1 or not isinstance(updated_node.body[0], cst.ImportFrom):
            return updated_node
        stmt = updated_node.body[0]
        if stmt.relative or isinstance(stmt.names, cst.ImportStar):
            module = dotted(stmt.module) or ""
            new_module = self._target(module) if not stmt.relative else None
            if new_module and new_module != module and self.report(original_node, f"`{module}` -> `{new_module}`",
                                                                    fixed=True):
                return updated_node.with_changes(body=[stmt.with_changes(module=build_dotted(new_module))])
            return updated_node
        module = dotted(stmt.module) or ""
        groups: dict[str, list[cst.ImportAlias]] = {}
        changed = False
        for alias in stmt.names:
            name = dotted(alias.name) or ""
            new = self._target(f"{module}.{name}") or f"{self._target(module) or module}.{name}"
            new_module, new_name = new.rsplit(".", 1)
            if (new_module, new_name) != (module, name):
                if not self.report(original_node, f"`{module}.{name}` -> `{new_module}.{new_name}`", fixed=True):
                    new_module, new_name = module, name
                else:
                    changed = True
            renamed = alias.with_changes(name=cst.Name(new_name), comma=cst.MaybeSentinel.DEFAULT)
            groups.setdefault(new_module, []).append(renamed)
        if not changed:
            return updated_node
        lines = []
        for i, (target, aliases) in enumerate(groups.items()):
            commas = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                      for a in aliases[:-1]] + [aliases[-1]]
            new_stmt = cst.ImportFrom(module=build_dotted(target), names=commas)
            line = cst.SimpleStatementLine(body=[new_stmt], trailing_whitespace=updated_node.trailing_whitespace)
            lines.append(line.with_changes(leading_lines=updated_node.leading_lines) if i == 0 else line)
        return lines[0] if len(lines) == 1 else cst.FlattenSentinel(lines)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        for name in self.qnames(original_node):
            new = self._target(name)
            if new and name.rsplit(".", 1)[-1] == updated_node.value and new.rsplit(".", 1)[-1] != updated_node.value:
                if self.report(original_node, f"`{name}` -> `{new}`", fixed=True):
                    return updated_node.with_changes(value=new.rsplit(".", 1)[-1])
        return updated_node

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        for name in self.qnames(original_node):
            new = self._target(name)
            if not new or new == name:
                continue
            if dotted(original_node) == name:
                if isinstance(self.parent(), cst.Attribute) and self._target(name + ".x") is not None:
                    return updated_node  # the outermost spelled-out chain is rewritten whole
                if self.report(original_node, f"`{name}` -> `{new}`", fixed=True):
                    return build_dotted(new)
                return updated_node
            if new.rsplit(".", 1)[0] == name.rsplit(".", 1)[0]:
                if self.report(original_node, f"`{name}` -> `{new}`", fixed=True):
                    return updated_node.with_changes(attr=cst.Name(new.rsplit(".", 1)[-1]))
                return updated_node
            self.report(original_node, f"`{name}` moved to `{new}`: import it from there", fixed=False)
        return updated_node


class KeywordEdit(CallDetector):
    """Rename (``RENAME_KW``) or drop (``DROP_KW``) keyword arguments of calls that ``is_site``
    recognises (callee by qualified name, or a method on a receiver of proven type; guard G7)."""

    RENAME_KW: ClassVar[dict[str, str]] = {}
    DROP_KW: ClassVar[frozenset[str]] = frozenset()
    REVIEW: ClassVar[bool] = False

    def visit_Call(self, node: cst.Call) -> None:
        return None

    def edit_value(self, keyword: str, value: cst.BaseExpression) -> cst.BaseExpression:
        return value

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        names = {a.keyword.value for a in updated_node.args if a.keyword}
        if not names & (set(self.RENAME_KW) | self.DROP_KW) or not self.is_site(original_node):
            return updated_node
        if not self.can_fix:
            self.report(original_node, self.MESSAGE, fixed=False)
            return updated_node
        if not self.report(original_node, self.MESSAGE, fixed=True, review=self.REVIEW):
            return updated_node
        args: list[cst.Arg] = []
        for arg in updated_node.args:
            key = arg.keyword.value if arg.keyword else None
            if key in self.DROP_KW:
                continue
            if key in self.RENAME_KW:
                arg = arg.with_changes(keyword=cst.Name(self.RENAME_KW[key]), value=self.edit_value(key, arg.value))
            args.append(arg)
        if args and args[-1] is not updated_node.args[-1]:
            args[-1] = args[-1].with_changes(comma=updated_node.args[-1].comma)
        return updated_node.with_changes(args=args)

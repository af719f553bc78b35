"""Report-only rule bases: names (``Detector``), calls with receiver provenance (``CallDetector``),
subclasses overriding methods (``SubclassDetector``), and keyword edits on such calls (``KeywordEdit``)."""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from mcp_eras.migrate.index import SERVER_CLASSES as SERVER_NAMES
from mcp_eras.migrate.index import ServerCtor, absolute_module
from mcp_eras.migrate.resolve import dotted
from mcp_eras.migrate.rules._lib.context import FileContext
from mcp_eras.migrate.rules._lib.transformer import RuleTransformer
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS


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


def entered(value: cst.BaseExpression) -> cst.BaseExpression:
    """``await stack.enter_async_context(X(...))`` (or ``stack.enter_context(X(...))``) evaluates to ``X(...)``:
    the context manager's ``__aenter__`` returns the session itself for the SDK's sessions."""
    call = value.expression if isinstance(value, cst.Await) else value
    if (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and len(call.args) == 1
            and call.func.attr.value in ("enter_async_context", "enter_context") and not call.args[0].keyword):
        return call.args[0].value
    return value


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
        key = dotted(name) if isinstance(name, cst.Name | cst.Attribute) else None
        if key is None or value is None:
            return
        value = entered(value)
        if (isinstance(value, cst.Call) and self.resolves_to(value.func, self.RECEIVERS)) or self.project_server(value):
            self.typed.add(key)
        elif self.context_call(value):
            self.typed.add(key)  # v1's `ctx = mcp.get_context()`: the Context MCP028 turns into a parameter

    def context_call(self, node: cst.BaseExpression) -> bool:
        """``<server>.get_context()`` where this rule's receivers are contexts (MCP028 makes it a parameter,
        so a second run would see a typed ``ctx``: the first run must see it too)."""
        return (bool(self.RECEIVERS & CONTEXT_CLASS) and isinstance(node, cst.Call) and not node.args
                and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get_context")

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
        if node.annotation is not None and self.annotated(node.annotation.annotation):
            self.typed.add(node.name.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        """``self.session: ClientSession | None = None`` (the SDK quickstart client's shape)."""
        key = dotted(node.target) if isinstance(node.target, cst.Name | cst.Attribute) else None
        if key is not None and self.annotated(node.annotation.annotation):
            self.typed.add(key)
        self._track(node.target, node.value)

    def annotated(self, annotation: cst.BaseExpression) -> bool:
        """An annotation naming one of ``RECEIVERS``: ``X``, ``X[...]``, ``Optional[X]``, ``X | None``."""
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
            return self.annotated(annotation.left) or self.annotated(annotation.right)
        if isinstance(annotation, cst.Subscript):
            if self.resolves_to(annotation.value, {"typing.Optional", "typing.Union"}):
                return any(isinstance(e.slice, cst.Index) and self.annotated(e.slice.value) for e in annotation.slice)
            annotation = annotation.value
        return self.resolves_to(annotation, self.RECEIVERS)

    def receiver_typed(self, node: cst.BaseExpression) -> bool:
        if self.project_server(node):
            return True
        while isinstance(node, cst.Attribute):
            if dotted(node) in self.typed:  # `self.session` typed by annotation or assignment
                return True
            node = node.value
        return (isinstance(node, cst.Name) and node.value in self.typed) or self.context_call(node)

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

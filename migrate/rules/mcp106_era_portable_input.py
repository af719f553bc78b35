"""MCP106 era-portable-input (``--modernize``): a tool that asks the client mid-call (``ctx.elicit()``,
``ctx.session.create_message()``, ``ctx.session.list_roots()``) takes the answer as a ``Resolve(...)``
parameter instead.

Under mcp 2.x those calls still work on a 2025-11-25 session but raise ``NoBackChannelError`` on a
2026-07-28 one, where a server asks by answering ``input_required`` (spec 2026-07-28,
``basic/utilities/mrtr``). The v2 SDK's resolvers serve both: a parameter annotated
``Annotated[T, Resolve(fn)]`` is filled before the body runs by ``fn``, which returns ``Elicit(message,
schema)``, ``Sample(messages, max_tokens=...)`` or ``ListRoots()``; the SDK sends the request on a 2025
session and drives the input_required rounds on a 2026 one. The value injected is what the v1 call
returned (the ``ElicitationResult`` union, a ``CreateMessageResult``, a ``ListRootsResult``).

The rewrite applies where the handler's shape allows it: an ``async`` ``@<server>.tool()`` function
(resolvers are a tool feature), the request awaited unconditionally at the top level of its body, as a
statement's whole value (``x = await ...``, ``return await ...``, ``await ...``, or the base of an
attribute read such as ``(await ctx.session.list_roots()).roots``), and its arguments built only from the
tool's own (unreassigned) arguments and module-level names. The question then is asked before the body
runs: when statements precede it, the handler gets a review marker. Every other site gets a marker that
says why it stays and what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.import_names import add_name
from mcp_eras.migrate.rules._lib.resolvers import (
    FRESH,
    HOMES,
    KINDS,
    QUALIFIED,
    Plan,
    add_param,
    all_names,
    bound_names,
    build,
    read_names,
    unique,
)
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS, SERVER_CLASS

FAILS = "fails on 2026-07-28 connections and is not rewritten"
HOW = "a resolver (`Annotated[T, Resolve(fn)]`, `fn` returning `{marker}(...)` from mcp.server.mcpserver)"
WHY = {
    "handler": ("only tools take Resolve(...) parameters; a prompt or template resource returns an "
                "InputRequiredResult on 2026 connections, other code asks in the calling tool"),
    "scope": ("the tool is defined inside a {scope} and `from __future__ import annotations` makes the SDK look its "
              "resolver up among module-level names: move the tool to module level and ask through {how}"),
    "nested": "it is asked conditionally or inside an expression; ask through {how} that decides from the tool's arguments",
    "args": "its arguments use {names}, computed in the body; compute {them} in {how} from the tool's arguments",
    "call": "`{marker}(...)` takes no {detail}; drop {them} and ask through {how}",
    "clash": "`{names}` already names something else here; import the SDK's under another name and ask through {how}",
}
REVIEW = ("the input requests now run in resolvers before the body, no longer after the statements above them: "
          "check that asking first is right")
SITES = {"elicit", "create_message", "list_roots"}


@dataclass
class Frame:
    node: cst.FunctionDef
    tool: bool
    params: dict[str, cst.Param]
    contexts: set[str]
    bound: set[str]
    top: list[int]  # ids of the top-level statements of the body, in order
    taken: set[str]
    plans: list[Plan] = field(default_factory=list)
    removed: set[int] = field(default_factory=set)  # `x = await ...` statements the parameter replaces
    replaced: dict[int, str] = field(default_factory=dict)  # id(original Await) -> parameter name
    scope: str | None = None  # "ClassDef"/"FunctionDef" enclosing the handler (None: module level)
    review: cst.CSTNode | None = None  # a site asked after other statements (its call node)


class Rule(CallDetector):
    META = RuleMeta(
        "MCP106",
        "era-portable-input",
        Kind.OPTIONAL,
        Safety.REVIEW,
        "`ctx.elicit()`/`ctx.session.create_message()`/`ctx.session.list_roots()` in a tool -> a `Resolve(...)` "
        "parameter (`--modernize`)",
        "server-initiated-sampling-elicitation-and-roots-raise-nobackchannelerror",
    )
    TRIGGERS = ("elicit", "create_message", "list_roots")
    RECEIVERS = CONTEXT_CLASS | SERVER_CLASS

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.frames: list[Frame] = []
        self.future = False  # `from __future__ import annotations`: annotations resolve in module globals only
        self.module_names: set[str] = set()
        self.needed: set[str] = set()
        self.rewritten: set[int] = set()  # lines of rewritten sites (their MCP207 advisory no longer applies)

    # ------------------------------------------------------------------ scopes
    def visit_Module(self, node: cst.Module) -> None:
        self.module_names = bound_names(node)
        self.future = any(isinstance(imp, cst.ImportFrom) and isinstance(imp.module, cst.Name)
                          and imp.module.value == "__future__" and not isinstance(imp.names, cst.ImportStar)
                          and any(a.name.value == "annotations" for a in imp.names)
                          for stmt in node.body if isinstance(stmt, cst.SimpleStatementLine) for imp in stmt.body)

    def _is_tool(self, node: cst.FunctionDef) -> bool:
        for decorator in node.decorators:
            target = decorator.decorator
            func = target.func if isinstance(target, cst.Call) else target
            if isinstance(func, cst.Attribute) and func.attr.value == "tool" and self.receiver_typed(func.value):
                return True
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        contexts = {p.name.value for p in every if p.annotation is not None
                    and self.resolves_to(_base(p.annotation.annotation), CONTEXT_CLASS)}
        scope = next((type(n).__name__ for n in reversed(self._nodes[:-1]) if isinstance(n, cst.ClassDef | cst.FunctionDef)),
                     None)
        self.frames.append(Frame(
            node, node.asynchronous is not None and self._is_tool(node), {p.name.value: p for p in every}, contexts,
            bound_names(node.body), [id(s) for s in node.body.body], all_names(node), scope=scope))

    # ------------------------------------------------------------------ sites
    def visit_Call(self, node: cst.Call) -> None:
        return None

    def _method(self, node: cst.Call) -> str | None:
        """``elicit`` on a Context, ``create_message``/``list_roots`` on its ``.session`` (or
        ``.request_context.session``); None for any other call."""
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in SITES:
            return None
        receiver = func.value
        if func.attr.value != "elicit":
            if not (isinstance(receiver, cst.Attribute) and receiver.attr.value == "session"):
                return None
            receiver = receiver.value
            if isinstance(receiver, cst.Attribute) and receiver.attr.value == "request_context":
                receiver = receiver.value
        if isinstance(receiver, cst.Name) and self._context_name(receiver.value):
            return func.attr.value
        return None

    def _context_name(self, name: str) -> bool:
        return any(name in frame.contexts for frame in self.frames)

    def _statement_of(self) -> tuple[cst.Await, cst.CSTNode, cst.CSTNode] | None:
        """(the ``await``, the small statement, the statement line) when the call being left is awaited as
        its statement's value (or the base of attribute/subscript reads that are)."""
        nodes = self._nodes
        if len(nodes) < 4 or not isinstance(nodes[-2], cst.Await) or nodes[-2].expression is not nodes[-1]:
            return None
        awaited = nodes[-2]
        child: cst.CSTNode = awaited
        index = len(nodes) - 3
        while index >= 0 and isinstance(nodes[index], cst.Attribute | cst.Subscript) and nodes[index].value is child:
            child, index = nodes[index], index - 1
        small = nodes[index]
        if not (isinstance(small, cst.Assign | cst.AnnAssign | cst.Return | cst.Expr) and small.value is child):
            return None
        line = nodes[index - 1]
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            return None
        return awaited, small, line

    def _why_not(self, method: str, call: cst.Call, frame: Frame | None,
                 shape: tuple[cst.Await, cst.CSTNode, cst.CSTNode] | None) -> str | None:
        marker = KINDS[method][0]
        how = HOW.format(marker=marker)
        if frame is None or not frame.tool:
            return WHY["handler"]
        if frame.scope is not None and self.future:
            return WHY["scope"].format(scope="class" if frame.scope == "ClassDef" else "function", how=how)
        if shape is None or id(shape[2]) not in frame.top:
            return WHY["nested"].format(how=how)
        _, keywords, positional = KINDS[method][1:]
        odd = [f"`{a.keyword.value}=`" for a in call.args if a.keyword is not None and a.keyword.value not in keywords]
        odd += ["`*`/`**` arguments" for a in call.args if a.star]
        if sum(1 for a in call.args if a.keyword is None and not a.star) > positional:
            odd.append("extra positional arguments")
        if odd:
            return WHY["call"].format(marker=marker, detail=", ".join(odd), them="it" if len(odd) == 1 else "them",
                                      how=how)
        local = [n for n in _arg_names(call) if n in frame.bound or n in frame.contexts]
        if local:
            names = ", ".join(f"`{n}`" for n in local)
            return WHY["args"].format(names=names, them="it" if len(local) == 1 else "them", how=how)
        clash = [n for n in (*KINDS[method][:2], "Annotated", "Resolve")
                 if self.bound(cst.Name(n)) and not self.resolves_to(cst.Name(n), QUALIFIED[n])]
        if clash:
            return WHY["clash"].format(names="`, `".join(clash), how=how)
        return None

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        method = self._method(original_node)
        if method is None:
            return updated_node
        frame = self.frames[-1] if self.frames else None
        shape = self._statement_of()
        why = self._why_not(method, original_node, frame, shape)
        if why is not None or frame is None or shape is None or not self.can_fix:
            text = f"`{_spelling(original_node)}` {FAILS}, because " + (why or "--safe-only keeps review-class rewrites out")
            self.report(original_node, text, fixed=False)
            return updated_node
        awaited, small, line = shape
        later = frame.top.index(id(line)) > _first_code(frame.node)
        if later and self._ignored(original_node):
            return updated_node
        target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else (
            small.target if isinstance(small, cst.AnnAssign) else None)
        param = None
        if isinstance(small, cst.Expr):  # the answer was not used: the statement goes, the question stays
            frame.removed.add(id(line))
        if (isinstance(target, cst.Name) and small.value is awaited and target.value not in frame.params
                and not _bound_before(frame, line, target.value)):
            param = target.value
            frame.removed.add(id(line))
        if param is None:
            param = unique(FRESH[method], frame.taken)
        frame.taken.add(param)
        resolver = unique(f"_{frame.node.name.value}_{param}".replace("__", "_"), self.module_names)
        self.module_names.add(resolver)
        read = _arg_names(original_node)
        used = [frame.params[n] for n in frame.params if n in read]
        if not later and not self.report(original_node, f"-> the `{param}` parameter, filled by `{resolver}()`",
                                         fixed=True):
            return updated_node
        plan = build(method, updated_node, resolver, param, used)
        frame.plans.append(plan)
        frame.replaced[id(awaited)] = param
        self.needed.update(plan.names)
        self.rewritten.add(self.line_of(original_node)[0])
        if later and frame.review is None:
            frame.review = original_node
        return updated_node

    def leave_Await(self, original_node: cst.Await, updated_node: cst.Await) -> cst.BaseExpression:
        for frame in reversed(self.frames):
            if id(original_node) in frame.replaced:
                return cst.Name(frame.replaced[id(original_node)])
        return updated_node

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine) -> cst.BaseStatement | cst.RemovalSentinel:
        if self.frames and id(original_node) in self.frames[-1].removed:
            return cst.RemovalSentinel.REMOVE
        return updated_node

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        frame = self.frames.pop()
        if not frame.plans:
            return updated_node
        if frame.review is not None:
            self.report(original_node, REVIEW, fixed=True, review=True)
        for plan in frame.plans:
            updated_node = add_param(updated_node, cst.Param(cst.Name(plan.param), annotation=plan.annotation))
        if not updated_node.body.body:
            updated_node = updated_node.with_changes(body=updated_node.body.with_changes(
                body=[cst.SimpleStatementLine([cst.Pass()])]))
        return self._with_resolvers(updated_node, frame)

    def _with_resolvers(self, handler: cst.FunctionDef, frame: Frame) -> cst.FlattenSentinel[cst.BaseStatement]:
        """The resolvers before the handler: they take the handler's leading blank lines and comments
        (markers stay on the handler: they speak of it), and a blank-line gap separates each."""
        gap = [cst.EmptyLine(indent=False)] * (2 if frame.scope is None else 1)
        lines = list(handler.leading_lines)
        cut = next((n for n, ln in enumerate(lines) if ln.comment is not None
                    and ln.comment.value.startswith("# TODO(mcp-migrate ")), len(lines))
        out: list[cst.BaseStatement] = []
        for i, plan in enumerate(frame.plans):
            resolver = plan.resolver.with_changes(leading_lines=lines[:cut] if i == 0 else gap)
            self.ctx.inserted.add(id(resolver))
            out.append(resolver)
        out.append(handler.with_changes(leading_lines=[*gap, *lines[cut:]]))
        return cst.FlattenSentinel(out)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if self.rewritten:  # the request is gone: MCP207's "raises NoBackChannelError" no longer applies
            self.ctx.findings[:] = [f for f in self.ctx.findings
                                    if not (f.rule == "MCP207" and f.line in self.rewritten)]
        for name in sorted(self.needed, key=lambda n: (HOMES[n], n)):
            if not self.bound(cst.Name(name)):
                updated_node = add_name(updated_node, HOMES[name], name)
        return updated_node


def _base(annotation: cst.BaseExpression) -> cst.BaseExpression:
    return annotation.value if isinstance(annotation, cst.Subscript) else annotation


def _arg_names(call: cst.Call) -> list[str]:
    """The names the call's arguments read, in order (the receiver chain not included)."""
    found: list[str] = []
    for arg in call.args:
        found.extend(n for n in read_names(arg.value) if n not in found)
    return found


def _spelling(call: cst.Call) -> str:
    return cst.Module([]).code_for_node(call.func) + "()"


def _first_code(node: cst.FunctionDef) -> int:
    """Index of the body's first statement that is not the docstring."""
    body = node.body.body
    first = body[0] if body else None
    docstring = (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1
                 and isinstance(first.body[0], cst.Expr) and isinstance(first.body[0].value, cst.SimpleString
                                                                        | cst.ConcatenatedString))
    return 1 if docstring else 0


def _bound_before(frame: Frame, line: cst.CSTNode, name: str) -> bool:
    """True when a top-level statement before ``line`` binds ``name`` (then it cannot become a parameter)."""
    for stmt in frame.node.body.body:
        if stmt is line:
            return False
        if name in bound_names(stmt) | all_names(stmt):
            return True
    return False

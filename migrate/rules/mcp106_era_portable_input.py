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
(resolvers are a tool feature), the request awaited as a statement's whole value (``x = await ...``,
``return await ...``, ``await ...``, or the base of an attribute read such as
``(await ctx.session.list_roots()).roots``) in the body, in the body of an ``if`` whose test the resolver
can evaluate again (the resolver asks under the same test and returns None otherwise), or in a ``try`` or
``with`` block; its arguments built from the tool's own (unreassigned) arguments, module-level names and
locals assigned once from those without side effects (the resolver computes them again). The question
then is asked before the body runs: when statements with effects preceded it, or a ``try``/``with``
surrounded it, the handler gets a review marker. Every other site gets a marker that says why it stays and
what to do.
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
    binding_targets,
    bound_names,
    build,
    pure,
    read_names,
    unique,
)
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS, SERVER_CLASS

FAILS = "fails on 2026-07-28 connections and is not rewritten"
HOW = "a resolver (`Annotated[T, Resolve(fn)]`, `fn` returning `{marker}(...)` from mcp.server.mcpserver)"
WHY = {
    "handler": ("only tools take Resolve(...) parameters; on 2026 connections a prompt or template resource returns "
                "an InputRequiredResult itself (check `ctx.protocol_version`) and reads the answers from `ctx.input_responses`"),
    "helper": ("it is not in a tool's own body; ask in each tool that calls this code, through {how}, and pass the "
               "answer in"),
    "scope": ("the tool is defined inside a {scope} and `from __future__ import annotations` makes the SDK look its "
              "resolver up among module-level names: move the tool to module level and ask through {how}"),
    "nested": ("it is asked in a loop, an else/except branch or inside an expression; ask through {how} that decides "
               "from the tool's arguments"),
    "test": "the `if` it is asked under has effects of its own; ask through {how} that decides from the tool's arguments",
    "args": "its arguments use {names}, computed in the body; compute {them} in {how} from the tool's arguments",
    "call": "`{marker}(...)` takes no {detail}; drop {them} and ask through {how}",
    "clash": "`{names}` already names something else here; import the SDK's under another name and ask through {how}",
}
REVIEW = "the input requests now run in resolvers before the body, so {}: check that this is right"
SITES = {"elicit", "create_message", "list_roots", "elicit_url", "elicit_form"}
# requests with no resolver form: always a marker (the method as `_method` names it -> why)
NO_RESOLVER = {
    "elicit_url": ("resolvers ask form questions only; on 2026 connections return an InputRequiredResult whose request "
                   "is a URL-mode ElicitRequest (check `ctx.protocol_version`) and keep this call for 2025 ones"),
    "session_elicit": ("it sends a raw JSON schema; ask through a resolver (`Annotated[T, Resolve(fn)]`, `fn` "
                       "returning `Elicit(message, Model)` from mcp.server.mcpserver) with a pydantic model of it"),
}


@dataclass
class Placement:
    """Where a site sits and what its resolver needs."""

    awaited: cst.Await
    small: cst.BaseSmallStatement
    line: cst.SimpleStatementLine
    guards: list[cst.If]  # the ``if`` statements it is asked under, outermost first
    copies: list[cst.SimpleStatementLine]  # the handler's assignments its arguments read, in order
    reviews: list[str]


@dataclass
class Site:
    method: str
    call: cst.Call  # as updated by the rules before this one
    param: str
    resolver: str
    params: list[cst.Param]
    placement: Placement


@dataclass
class Frame:
    node: cst.FunctionDef
    handler: str | None  # "tool", "prompt", "resource" (an async function registered on a server) or None
    params: dict[str, cst.Param]
    contexts: set[str]
    bound: list[str]  # every binding in the body, once per binding
    taken: set[str]
    scope: str | None = None  # "ClassDef"/"FunctionDef" enclosing the handler (None: module level)
    sites: list[Site] = field(default_factory=list)
    removed: set[int] = field(default_factory=set)  # `x = await ...` statements the parameter replaces
    replaced: dict[int, str] = field(default_factory=dict)  # id(original Await) -> parameter name
    updated: dict[int, cst.CSTNode] = field(default_factory=dict)  # id(original) -> updated statement / if test


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
    TRIGGERS = ("elicit", "create_message", "list_roots")  # `elicit` also finds elicit_url and elicit_form
    RECEIVERS = CONTEXT_CLASS | SERVER_CLASS

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.frames: list[Frame] = []
        self.future = False  # `from __future__ import annotations`: annotations resolve in module globals only
        self.module_names: set[str] = set()
        self.needed: set[str] = set()
        self.rewritten: set[int] = set()  # lines of rewritten sites (their MCP207 advisory no longer applies)
        self.emptied: set[int] = set()  # blocks whose only statement this rule removed

    # ------------------------------------------------------------------ scopes
    def visit_Module(self, node: cst.Module) -> None:
        self.module_names = bound_names(node)
        self.future = any(isinstance(imp, cst.ImportFrom) and isinstance(imp.module, cst.Name)
                          and imp.module.value == "__future__" and not isinstance(imp.names, cst.ImportStar)
                          and any(a.name.value == "annotations" for a in imp.names)
                          for stmt in node.body if isinstance(stmt, cst.SimpleStatementLine) for imp in stmt.body)

    def _handler(self, node: cst.FunctionDef) -> str | None:
        """``tool``, ``prompt`` or ``resource`` for a function registered on a provable server, else None."""
        for decorator in node.decorators:
            target = decorator.decorator
            func = target.func if isinstance(target, cst.Call) else target
            if (isinstance(func, cst.Attribute) and func.attr.value in ("tool", "prompt", "resource")
                    and self.receiver_typed(func.value)):
                return func.attr.value
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        params = node.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        contexts = {p.name.value for p in every if p.annotation is not None
                    and self.resolves_to(_base(p.annotation.annotation), CONTEXT_CLASS)}
        scope = next((type(n).__name__ for n in reversed(self._nodes[:-1]) if isinstance(n, cst.ClassDef | cst.FunctionDef)),
                     None)
        self.frames.append(Frame(node, self._handler(node) if node.asynchronous is not None else None,
                                 {p.name.value: p for p in every}, contexts, binding_targets(node.body),
                                 all_names(node), scope))

    # ------------------------------------------------------------------ sites
    def visit_Call(self, node: cst.Call) -> None:
        return None

    def _method(self, node: cst.Call) -> str | None:
        """``elicit``/``elicit_url`` on a Context, ``create_message``/``list_roots``/``session_elicit`` (its
        ``elicit``/``elicit_form``) on its ``.session`` (or ``.request_context.session``); None for any other call."""
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in SITES:
            return None
        receiver, method = func.value, func.attr.value
        if isinstance(receiver, cst.Attribute) and receiver.attr.value == "session":
            receiver = receiver.value
            if isinstance(receiver, cst.Attribute) and receiver.attr.value == "request_context":
                receiver = receiver.value
            if method in ("elicit", "elicit_form"):
                method = "session_elicit"
        elif method not in ("elicit", "elicit_url"):
            return None
        if isinstance(receiver, cst.Name) and any(receiver.value in frame.contexts for frame in self.frames):
            return method
        return None

    def _statement_of(self) -> tuple[cst.Await, cst.BaseSmallStatement, cst.SimpleStatementLine, int] | None:
        """(the ``await``, the small statement, the statement line, its index in the node stack) when the
        call being left is awaited as its statement's value (or the base of attribute/subscript reads that are)."""
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
        return awaited, small, line, index - 1

    def _placement(self, frame: Frame) -> Placement | str:
        """Where the call being left sits (the ``if``/``try``/``with`` blocks around it, what ran before it),
        or why a resolver cannot ask it."""
        shape = self._statement_of()
        if shape is None:
            return "nested"
        awaited, small, line, at = shape
        nodes = self._nodes
        start = max(i for i, n in enumerate(nodes) if n is frame.node)
        path = nodes[start + 1:at + 1]  # IndentedBlock, (compound, IndentedBlock)*, the statement
        guards: list[cst.If] = []
        reviews: list[str] = []
        before: list[cst.CSTNode] = []
        for i in range(0, len(path) - 1, 2):
            block, inner = path[i], path[i + 1]
            if not isinstance(block, cst.IndentedBlock):
                return "nested"
            index = next(k for k, stmt in enumerate(block.body) if stmt is inner)
            skip = _first_code(frame.node) if i == 0 else 0
            before.extend(block.body[skip:index])
            if inner is line:
                break
            if i + 2 >= len(path) or path[i + 2] is not getattr(inner, "body", None):
                return "nested"  # an else/except/finally branch, a loop, a match
            if isinstance(inner, cst.If):
                guards.append(inner)
            elif isinstance(inner, cst.Try):
                reviews.append("errors of the request are no longer caught by the `try` around it")
            elif isinstance(inner, cst.With):
                reviews.append("the request no longer runs inside its `with` block")
            else:
                return "nested"
        asked = {id(site.placement.line) for site in frame.sites}  # earlier questions: their resolvers run first too
        if any(id(stmt) not in asked and not self._pure_statement(stmt) for stmt in before):
            reviews.insert(0, "the question comes before statements that used to run first")
        return Placement(awaited, small, line, guards, [], reviews)

    def _pure_statement(self, stmt: cst.CSTNode) -> bool:
        return isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(small, cst.Pass) or (isinstance(small, cst.Assign | cst.AnnAssign) and small.value is not None
                                            and pure(small.value, self.module_names))
            for small in stmt.body)

    def _copies(self, frame: Frame, names: list[str], placement: Placement) -> list[str]:
        """Resolve the locals the question reads: each assigned once, at the top of the body before the
        question, from a side-effect-free expression over the tool's arguments (``placement.copies`` gets
        those assignments, in order); returns the names that cannot be computed again."""
        top = frame.node.body.body
        limit = next(k for k, stmt in enumerate(top) if any(n is stmt for n in self._nodes))
        chosen: dict[int, cst.SimpleStatementLine] = {}
        missing: list[str] = []
        todo = [(name, name) for name in names]  # (a name to compute, the name the question reads)
        while todo:
            name, root = todo.pop(0)
            found = next(((k, stmt) for k, stmt in enumerate(top[:limit]) if _assigns(stmt, name)), None)
            if name not in frame.contexts and name not in frame.bound:
                continue  # an argument of the tool, a module-level name or a builtin
            if (name in frame.contexts  # a per-request value: the question must read the same on every round
                    or name in frame.params or frame.bound.count(name) != 1 or found is None
                    or not pure(found[1].body[0].value, self.module_names)):  # type: ignore[attr-defined]
                if root not in missing:
                    missing.append(root)
                continue
            k, stmt = found
            if k not in chosen:
                chosen[k] = stmt
                todo.extend((n, root) for n in read_names(stmt.body[0].value))  # type: ignore[attr-defined]
        placement.copies = [chosen[k] for k in sorted(chosen)]
        return missing

    def _why_not(self, method: str, call: cst.Call, frame: Frame | None) -> Placement | str:
        if method in NO_RESOLVER:
            return NO_RESOLVER[method]
        marker = KINDS[method][0]
        how = HOW.format(marker=marker)
        if frame is None or frame.handler != "tool":
            return WHY["handler"] if frame is not None and frame.handler else WHY["helper"].format(how=how)
        if frame.scope is not None and self.future:
            return WHY["scope"].format(scope="class" if frame.scope == "ClassDef" else "function", how=how)
        placement = self._placement(frame)
        if isinstance(placement, str):
            return WHY[placement].format(how=how)
        _, keywords, positional = KINDS[method][1:]
        odd = [f"`{a.keyword.value}=`" for a in call.args if a.keyword is not None and a.keyword.value not in keywords]
        odd += ["`*`/`**` arguments" for a in call.args if a.star]
        if sum(1 for a in call.args if a.keyword is None and not a.star) > positional:
            odd.append("extra positional arguments")
        if odd:
            return WHY["call"].format(marker=marker, detail=", ".join(odd), them="it" if len(odd) == 1 else "them",
                                      how=how)
        read = _arg_names(call)
        for guard in placement.guards:
            if not pure(guard.test, self.module_names):
                return WHY["test"].format(how=how)
            read.extend(n for n in read_names(guard.test) if n not in read)
        local = self._copies(frame, read, placement)
        if local:
            names = ", ".join(f"`{n}`" for n in local)
            return WHY["args"].format(names=names, them="it" if len(local) == 1 else "them", how=how)
        clash = [n for n in (*KINDS[method][:2], "Annotated", "Resolve")
                 if self.bound(cst.Name(n)) and not self.resolves_to(cst.Name(n), QUALIFIED[n])]
        if clash:
            return WHY["clash"].format(names="`, `".join(clash), how=how)
        return placement

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        method = self._method(original_node)
        if method is None:
            return updated_node
        frame = self.frames[-1] if self.frames else None
        placement = self._why_not(method, original_node, frame)
        if isinstance(placement, str) or frame is None or not self.can_fix:
            why = placement if isinstance(placement, str) else "--safe-only keeps review-class rewrites out"
            self.report(original_node, f"`{_spelling(original_node)}` {FAILS}, because {why}", fixed=False)
            return updated_node
        if self._ignored(original_node):
            return updated_node
        small, awaited = placement.small, placement.awaited
        target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else (
            small.target if isinstance(small, cst.AnnAssign) else None)
        param = None
        if isinstance(small, cst.Expr):  # the answer was not used: the statement goes, the question stays
            frame.removed.add(id(placement.line))
        if (isinstance(target, cst.Name) and small.value is awaited and target.value not in frame.params
                and frame.bound.count(target.value) == 1):
            param = target.value
            frame.removed.add(id(placement.line))
        if param is None:
            param = unique(FRESH[method], frame.taken)
        frame.taken.add(param)
        resolver = unique(f"_{frame.node.name.value}_{param}".replace("__", "_"), self.module_names)
        self.module_names.add(resolver)
        read = _arg_names(original_node) + [n for g in placement.guards for n in read_names(g.test)] + [
            n for c in placement.copies for n in read_names(c.body[0].value)]  # type: ignore[attr-defined]
        used = [frame.params[n] for n in frame.params if n in read]
        if not placement.reviews:
            self.report(original_node, f"-> the `{param}` parameter, filled by `{resolver}()`", fixed=True)
        frame.sites.append(Site(method, updated_node, param, resolver, used, placement))
        frame.replaced[id(awaited)] = param
        self.rewritten.add(self.line_of(original_node)[0])
        return updated_node

    def leave_Await(self, original_node: cst.Await, updated_node: cst.Await) -> cst.BaseExpression:
        for frame in reversed(self.frames):
            if id(original_node) in frame.replaced:
                return cst.Name(frame.replaced[id(original_node)])
        return updated_node

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If | cst.RemovalSentinel:
        if self.frames:
            self.frames[-1].updated[id(original_node)] = updated_node.test
        if id(original_node.body) in self.emptied and original_node.orelse is None and pure(original_node.test,
                                                                                             self.module_names):
            return cst.RemovalSentinel.REMOVE  # `if <test>: answer = await ...` left nothing to do
        return updated_node

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        if original_node.body and not updated_node.body:  # its only statement became a parameter
            self.emptied.add(id(original_node))
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        if original_node.body and self.frames and id(original_node.body[0]) in self.frames[-1].removed:
            first = updated_node.body[0]  # first in its block now: no blank line after the `if ...:`/`try:`
            lines = list(first.leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            return updated_node.with_changes(body=[first.with_changes(leading_lines=lines), *updated_node.body[1:]])
        return updated_node

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine,
                                  updated_node: cst.SimpleStatementLine) -> cst.BaseStatement | cst.RemovalSentinel:
        if not self.frames:
            return updated_node
        self.frames[-1].updated[id(original_node)] = updated_node
        if id(original_node) in self.frames[-1].removed:
            return cst.RemovalSentinel.REMOVE
        return updated_node

    def leave_FunctionDef(self, original_node: cst.FunctionDef,
                          updated_node: cst.FunctionDef) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        frame = self.frames.pop()
        if not frame.sites:
            return updated_node
        reviews = list(dict.fromkeys(r for site in frame.sites for r in site.placement.reviews))
        if reviews:
            self.report(original_node, REVIEW.format("; ".join(reviews)), fixed=True, review=True)
        plans = []
        for site in frame.sites:
            copies = [frame.updated.get(id(c), c) for c in site.placement.copies]
            guards = [frame.updated.get(id(g), g.test) for g in site.placement.guards]
            plan = build(site.method, site.call, site.resolver, site.param, site.params, copies, guards)  # type: ignore[arg-type]
            self.needed.update(plan.names)
            plans.append(plan)
            updated_node = add_param(updated_node, cst.Param(cst.Name(plan.param), annotation=plan.annotation))
        updated_node = self._drop_copied(frame, updated_node)
        return self._with_resolvers(updated_node, plans, frame.scope)

    def _drop_copied(self, frame: Frame, handler: cst.FunctionDef) -> cst.FunctionDef:
        """Assignments the resolvers now compute and the handler no longer reads leave the handler."""
        inside = {id(n) for site in frame.sites for a in site.call.args for n in walk(a)}
        inside |= {id(n) for site in frame.sites for n in walk(site.placement.awaited)}
        reads = [n.value for n in walk(frame.node.body) if isinstance(n, cst.Name) and id(n) not in inside]
        drop = []
        for site in frame.sites:
            for copy in site.placement.copies:
                name = copy.body[0].targets[0].target.value  # type: ignore[attr-defined]
                if reads.count(name) == 1:  # its own assignment target only
                    drop.append(frame.updated.get(id(copy), copy))
        if not drop:
            return handler
        body = [stmt for stmt in handler.body.body if not any(stmt.deep_equals(d) for d in drop)]
        return handler.with_changes(body=handler.body.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])]))

    def _with_resolvers(self, handler: cst.FunctionDef, plans: list[Plan],
                        scope: str | None) -> cst.FlattenSentinel[cst.BaseStatement]:
        """The resolvers before the handler: they take the handler's leading blank lines and comments
        (markers stay on the handler: they speak of it), and a blank-line gap separates each."""
        gap = [cst.EmptyLine(indent=False)] * (2 if scope is None else 1)
        lines = list(handler.leading_lines)
        cut = next((n for n, ln in enumerate(lines) if ln.comment is not None
                    and ln.comment.value.startswith("# TODO(mcp-migrate ")), len(lines))
        out: list[cst.BaseStatement] = []
        for i, plan in enumerate(plans):
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


def _assigns(stmt: cst.CSTNode, name: str) -> bool:
    """``stmt`` is ``name = <value>`` (one target, one statement on the line)."""
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)
            and len(stmt.body[0].targets) == 1 and isinstance(stmt.body[0].targets[0].target, cst.Name)
            and stmt.body[0].targets[0].target.value == name)

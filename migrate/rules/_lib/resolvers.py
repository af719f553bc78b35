"""Building blocks of MCP106 (``--modernize``): the names a handler binds or reads, and the resolver
function and ``Annotated[..., Resolve(fn)]`` parameter that replace an input request made mid-call.

The v2 SDK's era-portable form (python-sdk ``docs/handlers/dependencies.md``; protocol 2026-07-28,
``basic/utilities/mrtr`` "multi round-trip requests"): a tool parameter annotated
``Annotated[T, Resolve(fn)]`` is filled before the body runs by ``fn``, which returns ``Elicit(...)``,
``Sample(...)`` or ``ListRoots()``; the SDK sends a server-to-client request on a 2025-11-25 session and
answers with an ``input_required`` result (then resumes) on a 2026-07-28 one.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from mcp_eras.migrate.rules._lib.walk import walk

# the v1 call -> (marker class, result annotation, keywords the marker takes, positional arguments it takes)
KINDS: dict[str, tuple[str, str, frozenset[str], int]] = {
    "elicit": ("Elicit", "ElicitationResult", frozenset({"message", "schema"}), 2),
    "create_message": ("Sample", "CreateMessageResult", frozenset(
        {"messages", "max_tokens", "system_prompt", "include_context", "temperature", "stop_sequences", "metadata",
         "model_preferences", "tools", "tool_choice"}), 1),
    "list_roots": ("ListRoots", "ListRootsResult", frozenset(), 0),
}
FRESH = {"elicit": "elicited", "create_message": "sampled", "list_roots": "listed_roots"}
V2 = "mcp.server.mcpserver"
TYPES = "mcp.types"
# where each inserted name comes from (imported there when the module does not bind it yet)
HOMES = {"Annotated": "typing", "Resolve": V2, "Elicit": V2, "Sample": V2, "ListRoots": V2,
         "ElicitationResult": V2, "CreateMessageResult": TYPES, "CreateMessageResultWithTools": TYPES,
         "ListRootsResult": TYPES}
QUALIFIED = {name: {f"{home}.{name}"} for name, home in HOMES.items()}
QUALIFIED["Annotated"] |= {"typing_extensions.Annotated"}
for _name in ("CreateMessageResult", "CreateMessageResultWithTools", "ListRootsResult"):
    QUALIFIED[_name] |= {f"mcp_types.{_name}"}


def binding_targets(node: cst.CSTNode) -> list[str]:
    """Every name a function body binds, once per binding (assignments, loop and ``with`` targets, walrus,
    imports, nested definitions, ``global``/``nonlocal``), without looking inside nested functions and classes."""
    found: list[str] = []
    stack: list[cst.CSTNode] = list(node.children)
    while stack:
        current = stack.pop()
        if isinstance(current, cst.FunctionDef | cst.ClassDef):
            found.append(current.name.value)
            continue
        if isinstance(current, cst.Lambda):
            continue
        targets: list[cst.CSTNode] = []
        if isinstance(current, cst.AssignTarget):
            targets.append(current.target)
        elif isinstance(current, cst.AnnAssign | cst.AugAssign | cst.For):
            targets.append(current.target)
        elif isinstance(current, cst.AsName):
            targets.append(current.name)
        elif isinstance(current, cst.NamedExpr):
            targets.append(current.target)
        elif isinstance(current, cst.Global | cst.Nonlocal):
            found.extend(item.name.value for item in current.names)
        elif isinstance(current, cst.ImportAlias) and current.asname is None:
            found.append(cst.Module([]).code_for_node(current.name).split(".")[0])
        for target in targets:
            found.extend(n.value for n in walk(target) if isinstance(n, cst.Name))
        stack.extend(current.children)
    return found


def bound_names(node: cst.CSTNode) -> set[str]:
    return set(binding_targets(node))


# calls of these builtins (when the module does not rebind them) may be evaluated again in a resolver
PURE_CALLS = frozenset({"abs", "bool", "float", "int", "isinstance", "len", "max", "min", "repr", "round", "sorted",
                        "str", "tuple", "list", "dict", "set"})


def pure(node: cst.CSTNode, shadowed: set[str]) -> bool:
    """True when evaluating ``node`` twice cannot be told from evaluating it once: no ``await``, ``yield``
    or walrus, and no call other than of a few builtins (``len``, ``str``, ``isinstance``...)."""
    for current in walk(node):
        if isinstance(current, cst.Await | cst.Yield | cst.NamedExpr | cst.Lambda):
            return False
        if isinstance(current, cst.Call) and not (
                isinstance(current.func, cst.Name) and current.func.value in PURE_CALLS
                and current.func.value not in shadowed):
            return False
    return True


def read_names(node: cst.CSTNode) -> list[str]:
    """Names ``node`` reads, in source order (not attribute names, not keyword names)."""
    found: list[str] = []
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            if current.value not in found:
                found.append(current.value)
            continue
        if isinstance(current, cst.Attribute):
            stack.append(current.value)
            continue
        if isinstance(current, cst.Arg):
            stack.append(current.value)
            continue
        stack.extend(reversed(current.children))
    return found


def all_names(node: cst.CSTNode) -> set[str]:
    return {n.value for n in walk(node) if isinstance(n, cst.Name)}


def unique(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    return name


@dataclass
class Plan:
    """One rewritten request: the resolver inserted before the handler and the parameter it fills."""

    param: str
    resolver: cst.FunctionDef
    annotation: cst.Annotation
    names: tuple[str, ...]  # the names the rewrite uses (imported when missing)


def _subscript(value: str, index: cst.BaseExpression) -> cst.Subscript:
    return cst.Subscript(cst.Name(value), [cst.SubscriptElement(cst.Index(index))])


def build(method: str, call: cst.Call, resolver: str, param: str, params: list[cst.Param],
          copies: list[cst.BaseStatement], guards: list[cst.BaseExpression]) -> Plan:
    """The resolver ``async def <resolver>(<params>) -> Elicit[S]: return Elicit(<the call's arguments>)``
    (``Sample``/``ListRoots`` likewise; after ``copies``, the handler's assignments its arguments read; under
    ``guards``, the ``if`` tests the question was asked under, else returning None) and the handler's new
    ``<param>: Annotated[..., Resolve(<resolver>)]``."""
    marker, result, _, _ = KINDS[method]
    schema = _schema(call) if method == "elicit" else None
    names = ["Annotated", "Resolve", marker, result]
    if method == "create_message" and any(a.keyword and a.keyword.value in ("tools", "tool_choice") for a in call.args):
        result = names[-1] = "CreateMessageResultWithTools"  # what the SDK injects when tools are offered
    returns: cst.BaseExpression = cst.Name(marker)
    value: cst.BaseExpression = cst.Name(result)
    if isinstance(schema, cst.Name | cst.Attribute):
        returns, value = _subscript(marker, schema), _subscript(result, schema)
    inner: list[cst.BaseStatement] = [cst.SimpleStatementLine([cst.Return(call.with_changes(func=cst.Name(marker)))])]
    for test in reversed(guards):
        inner = [cst.If(test=test, body=cst.IndentedBlock(inner))]
    body = [*(c.with_changes(leading_lines=[]) for c in copies), *inner]
    if guards:  # not asked: the parameter is None (the elicitation outcome without data), as the body never reads it
        body.append(cst.SimpleStatementLine([cst.Return(cst.Name("None"))]))
        returns = cst.BinaryOperation(returns, cst.BitOr(), cst.Name("None"))
    own = [cst.Param(p.name, annotation=p.annotation) for p in params]
    func = cst.FunctionDef(
        cst.Name(resolver), cst.Parameters(own), cst.IndentedBlock(body), returns=cst.Annotation(returns),
        asynchronous=cst.Asynchronous(),
    )
    annotation = cst.Annotation(cst.Subscript(cst.Name("Annotated"), [
        cst.SubscriptElement(cst.Index(value)),
        cst.SubscriptElement(cst.Index(cst.Call(cst.Name("Resolve"), [cst.Arg(cst.Name(resolver))]))),
    ]))
    return Plan(param, func, annotation, tuple(names))


def _schema(call: cst.Call) -> cst.BaseExpression | None:
    for position, arg in enumerate(call.args):
        if (arg.keyword is None and position == 1) or (arg.keyword is not None and arg.keyword.value == "schema"):
            return arg.value
    return None


def add_param(node: cst.FunctionDef, param: cst.Param) -> cst.FunctionDef:
    """``param`` appended to ``node``'s parameters: positional when it can be, keyword-only after
    defaulted parameters, ``*args`` or keyword-only ones."""
    params = node.params
    defaulted = any(p.default is not None for p in (*params.posonly_params, *params.params))
    if not defaulted and isinstance(params.star_arg, cst.MaybeSentinel) and not params.kwonly_params:
        return node.with_changes(params=params.with_changes(params=[*params.params, param]))
    star = params.star_arg if not isinstance(params.star_arg, cst.MaybeSentinel) else cst.ParamStar()
    return node.with_changes(params=params.with_changes(star_arg=star, kwonly_params=[*params.kwonly_params, param]))

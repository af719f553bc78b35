"""MCP103 init-options-helper (optional): a hand-built
``InitializationOptions(server_name=..., server_version=..., capabilities=server.get_capabilities(...))``
-> ``server.create_initialization_options(...)``, as the SDK's own examples were ported (python-sdk
``docs/migration.md`` § "Lowlevel Server: what did not change": ``create_initialization_options()``
is kept; v2 reads the name and version from ``Server(name, version=...)``).

Rewritten when ``server`` is a lowlevel ``Server(...)`` built in this file and the options carry
nothing but those three fields: ``get_capabilities``' arguments carry over (dropped when they are
v1's defaults, ``NotificationOptions()`` and ``{}``), and a literal ``server_version`` moves into the
constructor as ``version=`` (v2 reports an empty version otherwise). Left for review: a
``server_name`` other than the constructor's name (v2 reports the constructor's), a version the
constructor cannot take, or a constructor that sets ``instructions``/``website_url``/``icons`` (the
helper reports them; the hand-built options did not). Anything else is left alone.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import drop_unused
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import RuleTransformer
from mcp_eras.migrate.rules.sdk import LOWLEVEL_SERVER

OPTIONS = frozenset({"mcp.server.models.InitializationOptions", "mcp.server.models.initialization_options"
                                                                 ".InitializationOptions"})
NOTIFICATION_OPTIONS = frozenset({"mcp.server.lowlevel.NotificationOptions",
                                  "mcp.server.lowlevel.server.NotificationOptions", "mcp.server.NotificationOptions"})
FIELDS = frozenset({"server_name", "server_version", "capabilities"})
EXTRAS = ("instructions", "website_url", "icons")
_EQ = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword and a.keyword.value == name), None)


def _literal(node: cst.BaseExpression | None) -> str | None:
    value = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    return value if isinstance(value, str) else None


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP103",
        "init-options-helper",
        Kind.OPTIONAL,
        Safety.REVIEW,
        "Hand-built `InitializationOptions(...)` -> `server.create_initialization_options(...)`",
        "lowlevel-server-what-did-not-change",
    )
    TRIGGERS = ("InitializationOptions",)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.ctors: dict[str, list[cst.Call]] = {}  # server name -> its Server(...) calls in this file
        self.versions: dict[int, cst.BaseExpression] = {}  # id(ctor) -> version= to add
        self.plans: dict[int, tuple[str, list[cst.Arg], list[str]]] = {}  # id(options call) -> plan
        self.rewrote = False

    def visit_Module(self, node: cst.Module) -> None:
        """Plan before the pass: the constructor (which may gain ``version=``) precedes the options."""
        calls: list[cst.Call] = []
        for current in walk(node):
            if isinstance(current, cst.Assign) and isinstance(current.value, cst.Call) and self.resolves_to(
                    current.value.func, LOWLEVEL_SERVER):
                for target in current.targets:
                    if isinstance(target.target, cst.Name):
                        self.ctors.setdefault(target.target.value, []).append(current.value)
            elif isinstance(current, cst.Call):
                calls.append(current)
        if not self.can_fix:
            return
        for call in calls:
            plan = self._plan(call)
            if plan is not None:
                self.plans[id(call)] = plan

    def _plan(self, node: cst.Call) -> tuple[str, list[cst.Arg], list[str]] | None:
        """(server, arguments of the helper, review notes) when ``node`` can become the helper call."""
        if not self.resolves_to(node.func, OPTIONS) or any(a.keyword is None or a.star for a in node.args):
            return None
        if {a.keyword.value for a in node.args if a.keyword} != FIELDS:
            return None
        caps = _keyword(node, "capabilities")
        call = caps.value if caps else None
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "get_capabilities" and isinstance(call.func.value, cst.Name)):
            return None
        server = call.func.value.value
        ctors = self.ctors.get(server, [])
        if len(ctors) != 1 or not ctors[0].args:
            return None
        ctor = ctors[0]
        notes: list[str] = []
        name = _keyword(node, "server_name")
        ctor_name = ctor.args[0].value if ctor.args[0].keyword is None else (_keyword(ctor, "name") or ctor.args[0]).value
        if name is None or cst.Module([]).code_for_node(name.value) != cst.Module([]).code_for_node(ctor_name):
            notes.append("the server now reports the constructor's name, not server_name")
        version = _keyword(node, "server_version")
        ctor_version = _keyword(ctor, "version")
        if version is not None and ctor_version is None and _literal(version.value) is not None:
            self.versions[id(ctor)] = version.value
        elif version is None or ctor_version is None or _literal(version.value) != _literal(ctor_version.value):
            notes.append("the server now reports the constructor's version= (v2: empty when unset)")
        if any(_keyword(ctor, extra) for extra in EXTRAS):
            notes.append("the helper also reports the constructor's instructions/website_url/icons")
        return server, _helper_args(call, self), notes

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node) in self.versions:
            value = self.versions[id(original_node)]
            args = list(updated_node.args)
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            return updated_node.with_changes(args=[*args, cst.Arg(value, keyword=cst.Name("version"), equal=_EQ)])
        plan = self.plans.get(id(original_node))
        if plan is None:
            return updated_node
        server, args, notes = plan
        message = "hand-built initialization options -> create_initialization_options()" + (
            ": " + "; ".join(notes) if notes else "")
        if not self.report(original_node, message, fixed=True, review=bool(notes)):
            return updated_node
        self.rewrote = True
        func = cst.Attribute(value=cst.Name(server), attr=cst.Name("create_initialization_options"))
        return cst.Call(func=func, args=args)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not self.rewrote:
            return updated_node
        return drop_unused(updated_node, {
            "mcp.server.models": frozenset({"InitializationOptions"}),
            "mcp.server.lowlevel": frozenset({"NotificationOptions"}),
            "mcp.server.lowlevel.server": frozenset({"NotificationOptions"}),
        })


def _helper_args(call: cst.Call, rule: Rule) -> list[cst.Arg]:
    """``get_capabilities``' arguments for the helper (same parameter names), none when they are
    v1's defaults (``NotificationOptions()``, ``{}``)."""
    args = list(call.args)
    defaults = len(args) == 2 and all(not a.star for a in args)
    if defaults:
        first, second = args[0].value, args[1].value
        defaults = (isinstance(first, cst.Call) and not first.args and rule.resolves_to(first.func, NOTIFICATION_OPTIONS)
                    and isinstance(second, cst.Dict) and not second.elements)
    if defaults:
        return []
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args

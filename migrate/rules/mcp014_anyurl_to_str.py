"""MCP014 anyurl-to-str: resource URIs are ``str`` in v2; pydantic URL wrappers passed to MCP types fail.

``types.Resource(uri=AnyUrl("file:///a.txt"))`` -> ``types.Resource(uri="file:///a.txt")`` (and
``session.read_resource(AnyUrl(...))`` on a provable client session or context) when the
literal is already in the normal form pydantic would produce; otherwise ``str(AnyUrl(...))``,
which is exactly the string v1 serialised. Only ``uri=`` arguments of calls resolving to
``mcp.types`` and the URI of the SDK's resource methods are touched (guard G3: the project's own
models keep their URL fields). The URL import goes when nothing else uses it.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import drop_unused
from mcp_eras.migrate.rules.base import CallDetector
from mcp_eras.migrate.rules.sdk import CONTEXT_CLASS, SESSION_CLASS

URL_TYPES = frozenset(
    f"pydantic{mod}.{name}"
    for mod in ("", ".networks")
    for name in ("AnyUrl", "FileUrl", "AnyHttpUrl", "HttpUrl", "UrlConstraints")
)


URL_IMPORTS = {module: frozenset(n.rsplit(".", 1)[1] for n in URL_TYPES if n.startswith(module + "."))
               for module in ("pydantic", "pydantic.networks")}


def _normal_literal(node: cst.BaseExpression) -> cst.SimpleString | None:
    if not isinstance(node, cst.SimpleString) or not isinstance(node.evaluated_value, str):
        return None
    from pydantic import AnyUrl

    try:
        return node if str(AnyUrl(node.evaluated_value)) == node.evaluated_value else None
    except ValueError:
        return None


class Rule(CallDetector):
    META = RuleMeta(
        "MCP014", "anyurl-to-str", Kind.REQUIRED, Safety.REVIEW,
        "Resource URIs are `str`: unwrap pydantic URL objects passed to MCP types",
        "resource-uri-type-changed-from-anyurl-to-str",
    )
    TRIGGERS = ("Url(",)
    METHODS = frozenset({"read_resource", "subscribe_resource", "unsubscribe_resource"})
    RECEIVERS = SESSION_CLASS | CONTEXT_CLASS

    def visit_Call(self, node: cst.Call) -> None:
        return None

    def _uri_positions(self, call: cst.Call) -> list[int]:
        """Indexes of the arguments that carry a resource URI: ``uri=`` of an ``mcp.types`` model, or
        the URI of ``read_resource``/``(un)subscribe_resource`` on a provable session or context."""
        if any(n.startswith("mcp.types.") for n in self.qnames(call.func)):
            return [i for i, a in enumerate(call.args) if a.keyword and a.keyword.value == "uri"]
        func = call.func
        if isinstance(func, cst.Attribute) and func.attr.value in self.METHODS and self.receiver_typed(func.value):
            return [i for i, a in enumerate(call.args)
                    if (a.keyword is None and i == 0) or (a.keyword and a.keyword.value == "uri")]
        return []

    def _unproven_site(self, call: cst.Call) -> bool:
        """``<anything>.read_resource(AnyUrl(...))`` (a pydantic URL built for the SDK's resource methods):
        v2 takes a ``str`` there, so an unproven receiver gets a marker rather than nothing (issue 31)."""
        func = call.func
        return (isinstance(func, cst.Attribute) and func.attr.value in self.METHODS and bool(call.args)
                and isinstance(call.args[0].value, cst.Call) and self.resolves_to(call.args[0].value.func, URL_TYPES))

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        positions = self._uri_positions(original_node)
        if not positions:
            if self._unproven_site(original_node):
                self.report(original_node, "if this is an MCP client session, pass the URI as a str "
                                           "(v2 rejects a URL object)", fixed=False)
            return updated_node
        args = list(updated_node.args)
        changed = False
        for i in positions:
            value, arg = original_node.args[i].value, args[i]
            if not isinstance(value, cst.Call):
                continue
            if not self.resolves_to(value.func, URL_TYPES) or len(value.args) != 1 or value.args[0].keyword:
                continue
            if not self.can_fix:
                self.report(value, "URL object passed as a resource URI: pass a str", fixed=False)
                continue
            if not self.report(value, "URL object passed as a resource URI -> str", fixed=True):
                continue
            literal = _normal_literal(value.args[0].value)
            new_value: cst.BaseExpression = literal or cst.Call(func=cst.Name("str"), args=[cst.Arg(arg.value)])
            args[i] = arg.with_changes(value=new_value)
            changed = True
        return updated_node.with_changes(args=args) if changed else updated_node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        if not any(f.rule == self.META.id and f.status in ("fixed", "review") for f in self.ctx.findings):
            return updated_node
        return drop_unused(updated_node, URL_IMPORTS)

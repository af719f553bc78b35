"""MCP014 anyurl-to-str: resource URIs are ``str`` in v2; pydantic URL wrappers passed to MCP types fail.

``types.Resource(uri=AnyUrl("file:///a.txt"))`` -> ``types.Resource(uri="file:///a.txt")`` when the
literal is already in the normal form pydantic would produce; otherwise ``str(AnyUrl(...))``,
which is exactly the string v1 serialised. Only ``uri=`` arguments of calls resolving to
``mcp.types`` are touched (guard G3: the project's own models keep their URL fields).
"""

from __future__ import annotations

import libcst as cst

from migrate.model import Kind, RuleMeta, Safety
from migrate.rules.base import RuleTransformer

URL_TYPES = frozenset(
    f"pydantic{mod}.{name}"
    for mod in ("", ".networks")
    for name in ("AnyUrl", "FileUrl", "AnyHttpUrl", "HttpUrl", "UrlConstraints")
)


def _normal_literal(node: cst.BaseExpression) -> cst.SimpleString | None:
    if not isinstance(node, cst.SimpleString) or not isinstance(node.evaluated_value, str):
        return None
    from pydantic import AnyUrl

    try:
        return node if str(AnyUrl(node.evaluated_value)) == node.evaluated_value else None
    except ValueError:
        return None


class Rule(RuleTransformer):
    META = RuleMeta(
        "MCP014", "anyurl-to-str", Kind.REQUIRED, Safety.REVIEW,
        "Resource URIs are `str`: unwrap pydantic URL objects passed to MCP types",
        "resource-uri-type-changed-from-anyurl-to-str",
    )
    TRIGGERS = ("Url(",)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not any(n.startswith("mcp.types.") for n in self.qnames(original_node.func)):
            return updated_node
        args = list(updated_node.args)
        changed = False
        for i, (orig, arg) in enumerate(zip(original_node.args, args, strict=True)):
            value = orig.value
            if not (arg.keyword and arg.keyword.value == "uri" and isinstance(value, cst.Call)):
                continue
            if not self.resolves_to(value.func, URL_TYPES) or len(value.args) != 1 or value.args[0].keyword:
                continue
            if not self.can_fix:
                self.report(value, "URL object passed as `uri=` to an MCP type: pass a str", fixed=False)
                continue
            if not self.report(value, "URL object passed as `uri=` to an MCP type -> str", fixed=True):
                continue
            literal = _normal_literal(value.args[0].value)
            new_value: cst.BaseExpression = literal or cst.Call(func=cst.Name("str"), args=[cst.Arg(arg.value)])
            args[i] = arg.with_changes(value=new_value)
            changed = True
        return updated_node.with_changes(args=args) if changed else updated_node

"""MCP004 streamable-client-2tuple: the streamable HTTP client yields ``(read, write)``.

``async with streamable_http_client(url) as (read, write, _)``: the third target is dropped when
it is ``_`` or never used in the ``with`` body; when it is used (the removed ``get_session_id``
callback, MCP032) the site gets a marker. Calls not used directly as a ``with`` item, and items
bound to one name (``as streams``), are reported (the unpacking happens elsewhere).
"""

from __future__ import annotations

import re

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules.base import RuleTransformer

CLIENTS = frozenset(
    {
        "mcp.client.streamable_http.streamablehttp_client",
        "mcp.client.streamable_http.streamable_http_client",
    }
)


class Rule(RuleTransformer):
    META = RuleMeta("MCP004", "streamable-client-2tuple", Kind.REQUIRED, Safety.REVIEW,
                    "`streamable_http_client` yields `(read, write)`, not `(read, write, get_session_id)`",
                    "get_session_id-callback-removed-from-streamable_http_client")
    TRIGGERS = ("streamablehttp_client", "streamable_http_client")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.handled: set[int] = set()

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if isinstance(item.item, cst.Call) and self.resolves_to(item.item.func, CLIENTS):
                self.handled.add(id(item.item))

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.With:
        items = list(updated_node.items)
        changed = False
        for i, (orig, item) in enumerate(zip(original_node.items, items, strict=True)):
            if not (isinstance(orig.item, cst.Call) and self.resolves_to(orig.item.func, CLIENTS)):
                continue
            target = item.asname.name if item.asname else None
            if isinstance(target, cst.Name):  # `as streams`: unpacked (or indexed) further down
                self.report(original_node, f"yields (read, write) in v2: check where `{target.value}` is unpacked",
                            fixed=False)
                continue
            if not isinstance(target, cst.Tuple | cst.List) or len(target.elements) != 3:
                continue
            third = target.elements[2].value
            body = cst.Module([]).code_for_node(updated_node.body)  # as rewritten by the rules before (MCP032)
            unused = isinstance(third, cst.Name) and (
                third.value == "_" or not re.search(rf"\b{re.escape(third.value)}\b", body)
            )
            if not unused:
                self.report(original_node, "the get_session_id callback is gone: read the session id from an "
                                           "httpx2 response event hook (MCP032)", fixed=False)
                continue
            if not self.report(original_node, "unpack `(read, write)`", fixed=True):
                continue
            elements = list(target.elements[:2])
            elements[1] = elements[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            assert item.asname is not None
            items[i] = item.with_changes(asname=item.asname.with_changes(name=target.with_changes(elements=elements)))
            changed = True
        return updated_node.with_changes(items=items) if changed else updated_node

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self.handled or not self.resolves_to(node.func, CLIENTS):
            return
        self.report(node, "yields (read, write) in v2: check where the result is unpacked", fixed=False)

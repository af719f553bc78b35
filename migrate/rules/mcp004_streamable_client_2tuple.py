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
from mcp_eras.migrate.rules.base import RuleTransformer, dotted

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
        self.unpacks: set[int] = set()  # assignments unpacking three streams, the third unused

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

    def visit_Module(self, node: cst.Module) -> None:
        """Follow each client call not used as a ``with`` item to where its streams are unpacked: a
        name or attribute bound to ``await stack.enter_async_context(<call>)`` or to ``await
        <cm>.__aenter__()`` (``<cm> = <call>``), in this method or another one of the file."""
        flow = StreamFlow(self)
        node.visit(flow)
        code = self.ctx.code
        for call, unpacks in flow.unpacks.items():
            # every read of a holder is one this pass followed (else the streams go somewhere unseen)
            followed = all(flow.reads.get(text, 0) == count for text, count in flow.holders.get(call, {}).items())
            if followed and all(self._droppable(target, code) for _, _, target in unpacks):
                self.handled.add(call)
            for assign, _, target in unpacks:
                if self._droppable(target, code):
                    self.unpacks.add(assign)

    @staticmethod
    def _droppable(target: cst.Tuple | cst.List, code: str) -> bool:
        if len(target.elements) == 2:
            return True
        third = target.elements[2].value
        name = third.value if isinstance(third, cst.Name) else third.attr.value if isinstance(
            third, cst.Attribute) else None
        return name is not None and (name == "_" or len(re.findall(rf"\b{re.escape(name)}\b", code)) == 1)

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        target = updated_node.targets[0].target
        if id(original_node) not in self.unpacks or not self.can_fix or not isinstance(target, cst.Tuple | cst.List):
            return updated_node
        if len(target.elements) != 3:
            return updated_node
        if not self.report(original_node, "unpack `(read, write)`", fixed=True):
            return updated_node
        elements = list(target.elements[:2])
        elements[1] = elements[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(targets=[updated_node.targets[0].with_changes(
            target=target.with_changes(elements=elements))])

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self.handled or not self.resolves_to(node.func, CLIENTS):
            return
        self.report(node, "yields (read, write) in v2: check where the result is unpacked", fixed=False)


class StreamFlow(cst.CSTVisitor):
    """Where the streams of a client call (not a ``with`` item) go: ``holders`` (dotted names bound to
    them, or to the call itself for ``__aenter__``) and ``unpacks`` (assignments of three targets)."""

    def __init__(self, rule: Rule) -> None:
        super().__init__()
        self.rule = rule
        self.managers: dict[str, int] = {}  # `cm = client(...)` -> the call
        self.streams: dict[str, int] = {}  # `streams = await ...` -> the call
        self.reads: dict[str, int] = {}  # how often each name or dotted name appears in the code
        self.holders: dict[int, dict[str, int]] = {}  # call -> {text read: times this pass followed it}
        self.unpacks: dict[int, list[tuple[int, str | None, cst.Tuple | cst.List]]] = {}

    def visit_Name(self, node: cst.Name) -> None:
        self.reads[node.value] = self.reads.get(node.value, 0) + 1

    def visit_Attribute(self, node: cst.Attribute) -> None:
        text = dotted(node)
        if text is not None:
            self.reads[text] = self.reads.get(text, 0) + 1
        self.reads[node.attr.value] = self.reads.get(node.attr.value, 0) - 1  # `x.name` is no read of `name`

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:  # `f(name=...)` neither
            self.reads[node.keyword.value] = self.reads.get(node.keyword.value, 0) - 1

    def _client(self, node: cst.BaseExpression) -> int | None:
        if isinstance(node, cst.Call) and self.rule.resolves_to(node.func, CLIENTS):
            return id(node)
        return None

    def _source(self, value: cst.BaseExpression) -> tuple[int, str | None] | None:
        """(client call, the holder it came through) when ``value`` evaluates to a client's streams."""
        key = dotted(value) if isinstance(value, cst.Name | cst.Attribute) else None
        if key is not None and key in self.streams:
            return self.streams[key], key
        if not isinstance(value, cst.Await) or not isinstance(value.expression, cst.Call):
            return None
        call = value.expression
        func = call.func
        if not isinstance(func, cst.Attribute):
            return None
        if func.attr.value == "enter_async_context" and len(call.args) == 1:
            found = self._client(call.args[0].value)
            return (found, None) if found is not None else None
        manager = dotted(func.value)
        if func.attr.value == "__aenter__" and manager in self.managers:
            self._seen(self.managers[manager], f"{manager}.__aenter__")
            return self.managers[manager], None
        return None

    def _seen(self, call: int, text: str) -> None:
        counts = self.holders.setdefault(call, {})
        counts[text] = counts.get(text, 0) + 1

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1:
            return
        target = node.targets[0].target
        key = dotted(target) if isinstance(target, cst.Name | cst.Attribute) else None
        call = self._client(node.value)
        if key is not None and call is not None:
            self.managers[key] = call
            self.holders.setdefault(call, {}).setdefault(f"{key}.__aenter__", 0)
            return
        source = self._source(node.value)
        if source is None:
            return
        if source[1] is not None:
            self._seen(source[0], source[1])
        if key is not None:
            self.streams[key] = source[0]
            self._seen(source[0], key)
        elif isinstance(target, cst.Tuple | cst.List) and len(target.elements) in (2, 3):
            self.unpacks.setdefault(source[0], []).append((id(node), source[1], target))  # two: already v2's

"""MCP006 streamablehttp-client-removed: ``streamablehttp_client(...)`` -> ``streamable_http_client``.

The name is renamed everywhere (imports alias-aware). A call that passes only the URL (and
``terminate_on_close``) is complete. ``headers=``/``timeout=``/``sse_read_timeout=``/``auth=`` on a
call used directly as an ``async with`` item move to an ``httpx2.AsyncClient`` entered just before
it in the same statement and passed as ``http_client=`` (v1's defaults: 30 s, read 300 s, redirects
followed). A client factory, positional options or any other shape keeps a marker (v2 raises
TypeError on the old keywords, so nothing is lost silently).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import add_imports
from mcp_eras.migrate.rules.base import SymbolRename

OLD = "mcp.client.streamable_http.streamablehttp_client"
CLIENT_KWARGS = frozenset({"headers", "timeout", "sse_read_timeout", "auth", "httpx_client_factory"})
MOVABLE = frozenset({"headers", "timeout", "sse_read_timeout", "auth"})
ADVICE = ("through http_client=httpx2.AsyncClient(headers=..., timeout=httpx2.Timeout(30, read=300), auth=..., "
          "follow_redirects=True)")


class Rule(SymbolRename):
    META = RuleMeta("MCP006", "streamablehttp-client-removed", Kind.REQUIRED, Safety.REVIEW,
                    "`streamablehttp_client(...)` -> `streamable_http_client(url, http_client=httpx2.AsyncClient(...))`",
                    "streamablehttp_client-removed")
    RENAMES: ClassVar[dict[str, str]] = {OLD: "mcp.client.streamable_http.streamable_http_client"}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fixable: set[int] = set()
        self.before: dict[int, cst.SimpleStatementLine] = {}  # statement -> the line entering its httpx2 client
        self.taken: set[str] = set()
        self.inline: set[int] = set()  # client calls given their httpx2 client in place
        self.entered: dict[int, cst.Call] = {}  # client call -> the enter_async_context(...) call around it
        self.need_import = False

    def visit_With(self, node: cst.With) -> None:
        if node.asynchronous is None or not self.can_fix:
            return
        for item in node.items:
            call = item.item
            if isinstance(call, cst.Call) and self.resolves_to(call.func, {OLD}) and self._movable(call):
                self.fixable.add(id(call))

    @staticmethod
    def _movable(call: cst.Call) -> bool:
        keywords = {a.keyword.value for a in call.args if a.keyword}
        positional = [a for a in call.args if a.keyword is None and not a.star]
        return (bool(keywords & MOVABLE) and not keywords & (CLIENT_KWARGS - MOVABLE) and len(positional) <= 1
                and not any(a.star for a in call.args) and "http_client" not in keywords)

    def visit_Call(self, node: cst.Call) -> None:
        entered = _entered_client(node)
        if entered is not None and self.can_fix and self.resolves_to(entered.func, {OLD}) and self._movable(entered):
            self.fixable.add(id(entered))  # `await stack.enter_async_context(streamablehttp_client(url, headers=...))`
            self.entered[id(entered)] = node
        if not self.resolves_to(node.func, {OLD}) or id(node) in self.fixable:
            return
        if self.can_fix and self._movable(node):
            self.inline.add(id(node))  # any other shape: the client is built in the call itself
            return
        extra = sorted(a.keyword.value for a in node.args if a.keyword and a.keyword.value in CLIENT_KWARGS)
        positional = [a for a in node.args if a.keyword is None]
        if extra or len(positional) > 1:
            what = ", ".join(extra) or "positional client options"
            self.report(node, f"pass {what} {ADVICE}", fixed=False)

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.With:
        items: list[cst.WithItem] = []
        for orig, item in zip(original_node.items, updated_node.items, strict=True):
            if id(orig.item) not in self.fixable or not isinstance(item.item, cst.Call):
                items.append(item)
                continue
            if not self.report(orig.item, "headers/timeouts/auth -> an httpx2.AsyncClient passed as http_client=",
                               fixed=True, review=True):
                items.append(item)
                continue
            name = self._client_name()
            client, call = self._split(item.item, name)
            items.append(cst.WithItem(client, asname=cst.AsName(cst.Name(name)),
                                      comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
            items.append(item.with_changes(item=call))
            self.need_import = True
        return updated_node.with_changes(items=items) if len(items) != len(updated_node.items) else updated_node

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        """``stack.enter_async_context(streamablehttp_client(url, headers=...))``: the httpx2 client is
        entered on the same stack first, so it outlives the transport and is closed after it, as v1's
        own client was (v2 never closes a client it was given)."""
        updated = updated_node
        if id(original_node) in self.inline and self.report(
                original_node, "headers/timeouts/auth -> an httpx2.AsyncClient passed as http_client= (v2 does not "
                               "close a client it is given: close it when the transport is done)",
                fixed=True, review=True):
            client, call = self._split(updated_node, "_")
            self.need_import = True
            return call.with_changes(args=[a.with_changes(value=client) if a.keyword and a.keyword.value == "http_client"
                                           else a for a in call.args])
        inner = _entered_client(original_node)
        if inner is None or id(inner) not in self.entered or not isinstance(updated, cst.Call):
            return updated
        client_call = _entered_client(updated)
        if client_call is None or not self.report(inner, "headers/timeouts/auth -> an httpx2.AsyncClient entered on "
                                                         "the same stack, passed as http_client=", fixed=True,
                                                  review=True):
            return updated
        assert isinstance(updated.func, cst.Attribute)
        statement = self.ctx.statements[-1] if self.ctx.statements else None
        own_line = isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
        name = self._client_name() if own_line else "_"
        client, call = self._split(client_call, name)
        enter = cst.Await(cst.Call(updated.func, [cst.Arg(client)]))
        self.need_import = True
        if own_line:  # `http_client = await stack.enter_async_context(httpx2.AsyncClient(...))` on the line before
            self.before[id(statement)] = cst.SimpleStatementLine(
                [cst.Assign([cst.AssignTarget(cst.Name(name))], enter)])
            self.taken.add(name)
        else:
            call = call.with_changes(args=[a.with_changes(value=enter) if a.keyword and a.keyword.value == "http_client"
                                           else a for a in call.args])
        return updated.with_changes(args=[updated.args[0].with_changes(value=call)])

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> Any:
        result = super().leave_SimpleStatementLine(original_node, updated_node)
        before = self.before.pop(id(original_node), None)
        if before is None:
            return result
        first = before.with_changes(leading_lines=[ln for ln in updated_node.leading_lines if ln.comment is None])
        self.ctx.inserted.add(id(first))
        return cst.FlattenSentinel([first, result.with_changes(
            leading_lines=[ln for ln in updated_node.leading_lines if ln.comment is not None])])

    def _client_name(self) -> str:
        name = "http_client"
        while re.search(rf"\b{name}\b", self.ctx.code) or name in self.taken:
            name = "mcp_" + name
        return name

    @staticmethod
    def _split(call: cst.Call, name: str) -> tuple[cst.Call, cst.Call]:
        given = {a.keyword.value: a.value for a in call.args if a.keyword and a.keyword.value in MOVABLE}
        kwargs: list[tuple[str, cst.BaseExpression]] = []
        if "headers" in given:
            kwargs.append(("headers", given["headers"]))
        timeout = cst.parse_expression("httpx2.Timeout(30, read=300)")
        if "timeout" in given or "sse_read_timeout" in given:
            total = given.get("timeout", cst.Integer("30"))
            read = given.get("sse_read_timeout", cst.Integer("300"))
            timeout = cst.Call(cst.parse_expression("httpx2.Timeout"),
                               [cst.Arg(total), cst.Arg(read, keyword=cst.Name("read"), equal=_EQ)])
        kwargs.append(("timeout", timeout))
        if "auth" in given:
            kwargs.append(("auth", given["auth"]))
        kwargs.append(("follow_redirects", cst.Name("True")))
        client = cst.Call(cst.parse_expression("httpx2.AsyncClient"),
                          [cst.Arg(v, keyword=cst.Name(k), equal=_EQ) for k, v in kwargs])
        kept = [a for a in call.args if not (a.keyword and a.keyword.value in MOVABLE)]
        kept.append(cst.Arg(cst.Name(name), keyword=cst.Name("http_client"), equal=_EQ))
        kept = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in kept[:-1]] + [
            kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        return _commas(client), call.with_changes(args=kept)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return add_imports(updated_node, ["import httpx2\n"]) if self.need_import else updated_node


_EQ = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))


def _commas(call: cst.Call) -> cst.Call:
    args = list(call.args)
    args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))) for a in args[:-1]] + args[-1:]
    return call.with_changes(args=args)


def _entered_client(call: cst.Call) -> cst.Call | None:
    """The call inside ``<stack>.enter_async_context(<call>)``, else None."""
    func = call.func
    if (isinstance(func, cst.Attribute) and func.attr.value == "enter_async_context" and len(call.args) == 1
            and call.args[0].keyword is None and isinstance(call.args[0].value, cst.Call)):
        return call.args[0].value
    return None

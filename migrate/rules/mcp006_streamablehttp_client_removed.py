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
from typing import ClassVar

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
        if not self.resolves_to(node.func, {OLD}) or id(node) in self.fixable:
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

    def _client_name(self) -> str:
        name = "http_client"
        while re.search(rf"\b{name}\b", self.ctx.code):
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

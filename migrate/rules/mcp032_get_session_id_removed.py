"""MCP032 get-session-id-removed: the ``get_session_id`` callback (third element of what
``streamable_http_client`` yields) and its type ``GetSessionIdCallback`` are gone; the session id is
read from the responses through an httpx2 event hook (python-sdk ``docs/migration.md`` §
"get_session_id callback removed from streamable_http_client", option 2).

Rewritten when the callback is bound by ``async with streamable_http_client(...) as (r, w, get_id)``
and only called (``get_id()``) inside that ``with``: a list and a response hook are defined before the
statement, the hook is added to the httpx2 client that drives the transport (the one entered in the
same statement and passed as ``http_client=``, or a new one with v2's default timeouts), and each
call becomes the last id seen (MCP004 then unpacks ``(r, w)``). Review: the id is captured per
response. Any other use, and ``GetSessionIdCallback`` itself, is reported.
"""

from __future__ import annotations

import libcst as cst

from mcp_eras.migrate.model import Kind, RuleMeta, Safety
from mcp_eras.migrate.rules._lib.imports import add_imports
from mcp_eras.migrate.rules._lib.walk import walk
from mcp_eras.migrate.rules.base import Detector, dotted

CLIENTS = frozenset({"mcp.client.streamable_http.streamablehttp_client",
                     "mcp.client.streamable_http.streamable_http_client"})
PLAIN_KEYWORDS = frozenset({"url", "terminate_on_close"})  # nothing MCP006 moves onto a client
IDS = "_mcp_session_ids"
HOOK = "_mcp_capture_session_id"
CLIENT = "_mcp_http_client"
CAPTURE = (f"{IDS}: list[str] = []\n",
           f"async def {HOOK}(response) -> None:\n    if \"mcp-session-id\" in response.headers:\n"
           f"        {IDS}.append(response.headers[\"mcp-session-id\"])\n")
LAST_ID = f"({IDS}[-1] if {IDS} else None)"
HOOKS = f'{{"response": [{HOOK}]}}'
_EQ = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


class Rule(Detector):
    META = RuleMeta(
        "MCP032",
        "get-session-id-removed",
        Kind.REQUIRED,
        Safety.REVIEW,
        "Session id via the removed third tuple element -> httpx2 response event hook",
        "get_session_id-callback-removed-from-streamable_http_client",
    )
    TRIGGERS = ("GetSessionIdCallback", "streamablehttp_client", "streamable_http_client")
    NAMES = frozenset({"mcp.client.streamable_http.GetSessionIdCallback"})
    MESSAGE = "GetSessionIdCallback was removed: read mcp-session-id from an httpx2 response event hook"

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.plans: dict[int, tuple[int, str, str | None]] = {}  # id(with) -> (item index, callback, client name)
        self.callbacks: list[str] = []  # callbacks of the ``with`` statements being rewritten (innermost last)
        self.new_client = False
        self.pending = 0  # rewritten statements whose capture is not yet inserted before them

    def _plan(self, node: cst.With) -> tuple[int, str, str | None] | None:
        """(index of the transport item, callback name, name of the client item to hook or None for a
        new client) when ``node`` has the provable shape."""
        if "MCP004" not in self.ctx.selected or not self.can_fix:
            return None  # MCP004 unpacks (read, write) once the callback is no longer used
        clients = {item.asname.name.value: item.item for item in node.items
                   if item.asname is not None and isinstance(item.asname.name, cst.Name)}
        for index, item in enumerate(node.items):
            call, target = item.item, item.asname.name if item.asname else None
            if not (isinstance(call, cst.Call) and self.resolves_to(call.func, CLIENTS)
                    and isinstance(target, cst.Tuple | cst.List) and len(target.elements) == 3
                    and isinstance(target.elements[2].value, cst.Name)):
                continue
            callback = target.elements[2].value.value
            if not self._only_called(node.body, callback):
                return None
            keywords = {a.keyword.value: a.value for a in call.args if a.keyword}
            if any(a.star for a in call.args):
                return None
            if set(keywords) <= PLAIN_KEYWORDS:
                return index, callback, None
            given = keywords.get("http_client")
            if set(keywords) - PLAIN_KEYWORDS == {"http_client"} and isinstance(given, cst.Name):
                built = clients.get(given.value)
                if (isinstance(built, cst.Call) and dotted(built.func) in ("httpx.AsyncClient", "httpx2.AsyncClient")
                        and not any(a.keyword and a.keyword.value == "event_hooks" for a in built.args)):
                    return index, callback, given.value
            return None
        return None

    @staticmethod
    def _only_called(body: cst.BaseSuite, name: str) -> bool:
        """Every mention of ``name`` in ``body`` is a call without arguments, and none rebinds it."""
        calls = [n for n in walk(body) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
                 and n.func.value == name and not n.args]
        mentions = [n for n in walk(body) if isinstance(n, cst.Name) and n.value == name]
        return bool(calls) and len(mentions) == len(calls)

    def visit_With(self, node: cst.With) -> None:
        if self.callbacks:
            return  # one capture per scope: a nested statement keeps its marker (MCP004)
        plan = self._plan(node)
        if plan is not None:
            self.plans[id(node)] = plan
            self.callbacks.append(plan[1])

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        func = original_node.func
        if self.callbacks and isinstance(func, cst.Name) and func.value == self.callbacks[-1] and not original_node.args:
            return cst.parse_expression(LAST_ID)
        return updated_node

    def leave_With(self, original_node: cst.With, updated_node: cst.With) -> cst.With:
        plan = self.plans.pop(id(original_node), None)
        if plan is None:
            return updated_node
        self.callbacks.pop()
        index, _, client = plan
        self.report(original_node, "get_session_id() -> the last mcp-session-id an httpx2 response hook saw",
                    fixed=True, review=True)
        items = list(updated_node.items)
        if client is None:
            call = items[index].item
            assert isinstance(call, cst.Call)
            args = [*call.args[:-1], call.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                    cst.Arg(cst.Name(CLIENT), keyword=cst.Name("http_client"), equal=_EQ)]
            new = cst.parse_expression(f"httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=300), event_hooks={HOOKS})")
            items[index] = items[index].with_changes(item=call.with_changes(args=args))
            items.insert(index, cst.WithItem(new, asname=cst.AsName(cst.Name(CLIENT)),
                                             comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
            self.new_client = True
        else:
            for i, item in enumerate(items):
                if item.asname is not None and isinstance(item.asname.name, cst.Name) and item.asname.name.value == client:
                    built = item.item
                    assert isinstance(built, cst.Call)
                    hook = cst.Arg(cst.parse_expression(HOOKS), keyword=cst.Name("event_hooks"), equal=_EQ)
                    args = list(built.args)
                    if args:
                        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                    items[i] = item.with_changes(item=built.with_changes(args=[*args, hook]))
        self.pending += 1
        return updated_node.with_changes(items=items)

    def _insert_captures(self, body: list[cst.BaseStatement]) -> list[cst.BaseStatement] | None:
        """The capture (list and hook) right before each rewritten ``with`` of ``body`` that lacks it. Done
        from the enclosing block, so the markers stay on the ``with`` itself (a second run sees them)."""
        out: list[cst.BaseStatement] = []
        for stmt in body:
            previous = out[-1] if out else None
            if (isinstance(stmt, cst.With) and HOOK in cst.Module([]).code_for_node(stmt)
                    and not (isinstance(previous, cst.FunctionDef) and previous.name.value == HOOK)):
                out.extend(cst.parse_statement(text) for text in CAPTURE)
                self.pending -= 1
            out.append(stmt)
        return out if len(out) != len(body) else None

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        body = self._insert_captures(list(updated_node.body)) if self.pending else None
        return updated_node if body is None else updated_node.with_changes(body=body)

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        body = self._insert_captures(list(updated_node.body)) if self.pending else None
        updated = updated_node if body is None else updated_node.with_changes(body=body)
        return add_imports(updated, ["import httpx2\n"]) if self.new_client else updated

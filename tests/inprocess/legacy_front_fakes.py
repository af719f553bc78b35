"""``ListeningUpstream``: the fronts' ``FakeUpstream`` (tests/inprocess/fakes.py) grown into a 2026-07-28 server
a 2025 session can live on.

It answers from the spec's own examples (tests/data/spec), records every canonical request it gets, keeps
``subscriptions/listen`` streams open until cancelled (or ended with ``end_listen``), and lets a test push
change notifications to them. Tools:

* ``echo``, ``progress``, ``hang``: the base fake's;
* ``ask``: round 1 ``input_required`` (one form elicitation, ``requestState`` "s1"), round 2 complete with the
  elicitation answer;
* ``log``: emits one ``notifications/message`` per level (request-scoped), then completes;
* ``jumpy``: emits progress 1, 2, 2, 1, 3 (the bridge must make it strictly increasing), then completes;
* ``slow``: waits until cancelled or ``release`` is set.
"""

from __future__ import annotations

import asyncio
import copy
from typing import Any

from fakes import FakeUpstream

from mcp_eras.bridge.core import CallContext, Emit
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.eras import LOG_LEVELS, META_SUBSCRIPTION_ID
from mcp_eras.bridge.translate.jsonrpc import Message

import spec

TOOLS = [
    {"name": name, "description": name, "inputSchema": {"type": "object"}}
    for name in ("echo", "progress", "hang", "ask", "log", "jumpy", "slow")
]


def complete(result: dict[str, Any]) -> dict[str, Any]:
    return {"resultType": "complete", **result}


class ListeningUpstream(FakeUpstream):
    def __init__(self, capabilities: dict[str, Any] | None = None, listen_supported: bool = True) -> None:
        super().__init__()
        discover = copy.deepcopy(spec.example("DiscoverResult", "server-capabilities-discovery.json"))
        discover["capabilities"] = capabilities if capabilities is not None else {
            "tools": {"listChanged": True}, "prompts": {"listChanged": True},
            "resources": {"subscribe": True, "listChanged": True}, "logging": {}}
        self.discover_result = discover
        self.listen_supported = listen_supported
        self.requests: list[Message] = []
        self.listens: dict[str, dict[str, Any]] = {}
        """Open listens by a key of our own ("<caller id>#<n>": callers' ids may repeat across sessions) ->
        {"id": caller id, "filter", "emit", "end" event}."""
        self._listen_keys = 0
        self.closed_listens: list[Any] = []
        self.changed = asyncio.Condition()
        """Notified on every request and every listen opened or closed."""
        self.cancelled_ids: list[Any] = []
        self.release = asyncio.Event()

    # --- Upstream --------------------------------------------------------------------------------

    async def discover(self, ctx: CallContext) -> Message:
        return copy.deepcopy(self.discover_result)

    async def aclose(self) -> None:
        await super().aclose()
        for listen in self.listens.values():
            listen["end"].set()

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        spec.modern("JSONRPCRequest", request)
        self.calls.append((request, ctx))
        self.requests.append(copy.deepcopy(request))
        async with self.changed:
            self.changed.notify_all()
        method = request["method"]
        rid = request["id"]
        params = request.get("params") or {}
        try:
            if method == "subscriptions/listen":
                return await self._listen(rid, params, emit)
            if method == "tools/list":
                return jsonrpc.result_response(rid, complete({"tools": copy.deepcopy(TOOLS)}))
            if method == "tools/call" and params.get("name") in ("ask", "log", "jumpy", "slow"):
                return await self._tool(rid, params, emit)
            if method == "tools/call":
                return await super().call(request, ctx, emit)
            if method == "resources/read":
                uri = params.get("uri")
                if uri == "file:///missing":
                    return jsonrpc.error_response(rid, -32602, "Resource not found", {"uri": uri})
                return jsonrpc.result_response(rid, complete({"contents": [{"uri": uri, "text": "hello"}]}))
            return jsonrpc.error_response(rid, -32601, f"Method not found: {method}")
        except asyncio.CancelledError:
            self.cancelled_ids.append(rid)
            raise

    # --- behaviours --------------------------------------------------------------------------------

    async def _tool(self, rid: Any, params: dict[str, Any], emit: Emit) -> Message:
        name = params.get("name")
        meta = params.get("_meta") or {}
        if name == "ask":
            answers = params.get("inputResponses")
            if not answers:
                return jsonrpc.result_response(rid, {
                    "resultType": "input_required", "requestState": "s1",
                    "inputRequests": {"name": {"method": "elicitation/create", "params": {
                        "mode": "form", "message": "Your name?",
                        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}})
            assert params.get("requestState") == "s1"
            reply = answers["name"]
            text = reply.get("content", {}).get("name") if reply.get("action") == "accept" else reply.get("action")
            return jsonrpc.result_response(rid, complete({"content": [{"type": "text", "text": str(text)}]}))
        if name == "log":
            for level in LOG_LEVELS:
                await emit(jsonrpc.notification("notifications/message", {"level": level, "data": level}))
            return jsonrpc.result_response(rid, complete({"content": [{"type": "text", "text": "logged"}]}))
        if name == "jumpy":
            token = meta.get("progressToken")
            for value in (1, 2, 2, 1, 3):
                await emit(jsonrpc.notification("notifications/progress", {"progressToken": token, "progress": value}))
            return jsonrpc.result_response(rid, complete({"content": [{"type": "text", "text": "done"}]}))
        await self.release.wait()
        return jsonrpc.result_response(rid, complete({"content": [{"type": "text", "text": "slow"}]}))

    async def _listen(self, rid: Any, params: dict[str, Any], emit: Emit) -> Message:
        if not self.listen_supported:
            return jsonrpc.error_response(rid, -32601, "Method not found: subscriptions/listen")
        filt = params.get("notifications") or {}
        end = asyncio.Event()
        self._listen_keys += 1
        key = f"{rid}#{self._listen_keys}"
        self.listens[key] = {"id": rid, "filter": filt, "emit": emit, "end": end}
        await emit(jsonrpc.notification("notifications/subscriptions/acknowledged",
                                        {"_meta": {META_SUBSCRIPTION_ID: rid}, "notifications": filt}))
        async with self.changed:
            self.changed.notify_all()
        try:
            await end.wait()
            return jsonrpc.result_response(rid, {"resultType": "complete", "_meta": {META_SUBSCRIPTION_ID: rid}})
        finally:
            self.listens.pop(key, None)
            self.closed_listens.append(key)
            async with self.changed:
                self.changed.notify_all()

    # --- test controls -----------------------------------------------------------------------------

    async def wait_listens(self, predicate: Any, timeout: float = 10.0) -> None:
        """Until ``predicate(self.listens)`` holds (a deadline, never a sleep)."""
        async with asyncio.timeout(timeout):
            async with self.changed:
                await self.changed.wait_for(lambda: predicate(self.listens))

    async def wait_request(self, rid: Any, timeout: float = 10.0) -> None:
        """Until a request with caller id ``rid`` arrived."""
        async with asyncio.timeout(timeout):
            async with self.changed:
                await self.changed.wait_for(lambda: any(r["id"] == rid for r in self.requests))

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Send a change notification on every open listen whose filter asks for it; returns how many."""
        sent = 0
        for listen in list(self.listens.values()):
            filt = listen["filter"]
            wanted = {
                "notifications/tools/list_changed": filt.get("toolsListChanged"),
                "notifications/prompts/list_changed": filt.get("promptsListChanged"),
                "notifications/resources/list_changed": filt.get("resourcesListChanged"),
                "notifications/resources/updated": (params or {}).get("uri") in (filt.get("resourceSubscriptions") or []),
            }.get(method)
            if wanted:
                tag = {META_SUBSCRIPTION_ID: listen["id"]}
                await listen["emit"](jsonrpc.notification(method, {**(params or {}), "_meta": tag}))
                sent += 1
        return sent

    def end_listen(self, key: str) -> None:
        self.listens[key]["end"].set()

"""``FakeUpstream``: a scripted ``mcp_eras.bridge.core.Upstream`` for in-process tests of the fronts."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp_eras.bridge.core import CallContext, Emit, Upstream
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message

DISCOVER = {"resultType": "complete", "supportedVersions": [eras.MODERN], "capabilities": {"tools": {}},
            "ttlMs": 0, "cacheScope": "private"}


class FakeUpstream(Upstream):
    """Tools: ``echo`` (returns its ``text``), ``progress`` (two progress notifications first, when the
    request has a progressToken), ``hang`` (never answers until cancelled). Records every call."""

    era = eras.MODERN

    def __init__(self) -> None:
        self.calls: list[tuple[Message, CallContext]] = []
        self.cancelled = asyncio.Event()
        self.hanging = asyncio.Event()
        """Set when a ``hang`` call started."""
        self.started = 0
        self.closed = 0

    async def start(self) -> None:
        self.started += 1

    async def discover(self, ctx: CallContext) -> Message:
        return dict(DISCOVER)

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        self.calls.append((request, ctx))
        params = request.get("params") or {}
        if request["method"] == "server/discover":
            return jsonrpc.result_response(request["id"], await self.discover(ctx))
        if request["method"] != "tools/call":
            return jsonrpc.result_response(request["id"], {"resultType": "complete", "tools": []})
        name = params.get("name")
        if name == "limited":
            return jsonrpc.error_response(request["id"], -32000, "Upstream session limit reached (1)", {"limit": "upstream_sessions"})
        if name == "progress":
            token = (params.get("_meta") or {}).get("progressToken")
            for step in (1, 2):
                await emit(jsonrpc.notification("notifications/progress", {"progressToken": token, "progress": step}))
        if name == "hang":
            self.hanging.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        text = str((params.get("arguments") or {}).get("text", name))
        return jsonrpc.result_response(request["id"], {"resultType": "complete", "content": [{"type": "text", "text": text}]})

    async def aclose(self) -> None:
        self.closed += 1

    def status(self) -> dict[str, Any]:
        return {"era": self.era, "calls": len(self.calls)}

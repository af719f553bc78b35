"""A 2025-11-25 server that answers in the same call, behind a ``LegacyTransport``: no child, no socket, no task switch.

It knows ``initialize`` and one tool, ``add(a, b)``, answered through the session's ``take_response`` as a stdio child's
answers are. Shared by ``test_per_call_work.py`` (lines of bridge code per relayed call) and ``bench/upstream_path.py``
(CPU per relayed call): both measure the same call over the same server. The benchmark puts this folder on its path;
the test never imports from ``bench/``.
"""

from __future__ import annotations

from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.upstream.legacy_transport import LegacyTransport

INIT = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "bench", "version": "1"}}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"}}


class Instant(LegacyTransport):
    """A 2025 server answering in the same call (responses through the session's ``take_response``, as stdio does)."""

    kind = "stdio"

    async def open(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def send(self, msg: Message) -> None:
        if "id" not in msg or "method" not in msg:
            return
        if msg["method"] == "initialize":
            await self._deliver({"jsonrpc": "2.0", "id": msg["id"], "result": INIT}, None)
            return
        args = msg["params"]["arguments"]
        answer = {"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}}
        assert self.take_response is not None
        self.take_response(answer)


def request(i: int) -> Message:
    """A 2026-07-28 ``tools/call`` of ``add(i, 1)`` with the request ``_meta`` envelope (answer: ``i + 1``)."""
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "add", "arguments": {"a": i, "b": 1}, "_meta": META}}

"""An in-process 2025-11-25 server behind a ``LegacyTransport``: no subprocess, no sockets.

``FakeLegacyTransport`` hands every frame the bridge sends to a ``FakeLegacyServer`` running as asyncio
tasks; the server answers through the transport's ``deliver`` exactly as a stdio child would (no wire
attribution, ``related`` is None) or, with ``attribute=True``, as a Streamable HTTP POST stream would.

Tools of the fake server:
  echo(text)        -> text content
  ask(n=1)          -> n concurrent ``elicitation/create`` requests, then their answers as text
  ask_and_go        -> one ``roots/list`` it does not wait for, then its result
  sample(context)   -> one ``sampling/createMessage`` (with ``includeContext`` when given)
  roots             -> one ``roots/list``
  progress(steps)   -> ``steps`` progress notifications (one repeated, to test monotonicity) and a log line
  block             -> waits until ``server.release`` is set
  allowed           -> the root URIs the server was given, or "none" (read at call time)

With ``roots_on_init`` (on the transport) the server asks ``roots/list`` as soon as it is initialized,
outside any call, as npm ``server-filesystem`` does; ``server.roots_asked`` is set once the bridge took
the request, and ``server.roots`` keeps the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message
from mcp_eras.bridge.upstream.legacy_transport import LegacyTransport

SERVER_INFO = {"name": "FakeLegacy", "version": "1.0.0"}
CAPABILITIES = {
    "tools": {"listChanged": True},
    "resources": {"subscribe": True, "listChanged": True},
    "logging": {},
}


class FakeLegacyServer:
    """One legacy session's server side. Records every frame it receives."""

    def __init__(self, transport: FakeLegacyTransport) -> None:
        self.transport = transport
        self.received: list[Message] = []
        self.answers: asyncio.Queue[Message] = asyncio.Queue()
        """Responses to the server's own requests and cancellations, in arrival order (for tests to await)."""
        self.initialized = False
        self.release = asyncio.Event()
        self.cancelled: list[Any] = []
        self.subscribed: list[str] = []
        self.roots_asked = asyncio.Event()
        self.roots: Message | None = None
        self._ids = itertools.count(1000)
        self._waiting: dict[Any, asyncio.Future[Message]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def handle(self, msg: Message) -> None:
        self.received.append(msg)
        if jsonrpc.is_response(msg) or msg.get("method") == "notifications/cancelled":
            self.answers.put_nowait(msg)
        if jsonrpc.is_response(msg):
            fut = self._waiting.pop(msg.get("id"), None)
            if fut is not None and not fut.done():
                fut.set_result(msg)
            return
        method = msg.get("method")
        if method == "notifications/cancelled":
            self.cancelled.append((msg.get("params") or {}).get("requestId"))
            return
        if method in ("notifications/initialized", "notifications/roots/list_changed"):
            # As npm server-filesystem does: ask for the roots once initialized and again on each change.
            self.initialized = True
            if self.transport.roots_on_init:
                self._start(self._ask_roots())
            return
        if jsonrpc.is_request(msg):
            self._start(self._serve(msg))

    def _start(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _say(self, msg: Message, related: Any) -> None:
        await self.transport.deliver_from_server(msg, related)

    async def _ask_roots(self) -> None:
        self.roots = await self._ask("roots/list", None, None, sent=self.roots_asked)

    async def _ask(self, method: str, params: Message | None, related: Any, sent: asyncio.Event | None = None) -> Message:
        sid = next(self._ids)
        fut: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[sid] = fut
        await self._say(jsonrpc.request(sid, method, params), related)
        if sent is not None:
            sent.set()
        return await fut

    async def _serve(self, msg: Message) -> None:
        rid, method = msg["id"], msg["method"]
        params = msg.get("params") or {}
        related = rid if self.transport.attribute else None
        if method == "initialize":
            result = {"protocolVersion": params.get("protocolVersion", "2025-11-25"), "capabilities": CAPABILITIES,
                      "serverInfo": SERVER_INFO}
        elif method in ("logging/setLevel", "resources/unsubscribe", "ping"):
            result = {}
        elif method == "resources/subscribe":
            self.subscribed.append(params.get("uri"))
            result = {}
        elif method == "tools/list":
            result = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in ("echo", "ask", "block")]}
        elif method == "tools/call":
            result = await self._tool(params, related)
        else:
            await self._say(jsonrpc.error_response(rid, -32601, f"Method not found: {method}"), related)
            return
        await self._say(jsonrpc.result_response(rid, result), related)

    async def _tool(self, params: Message, related: Any) -> Message:
        name, args = params.get("name"), params.get("arguments") or {}
        if name == "echo":
            return _text(str(args.get("text", "")))
        if name == "ask":
            answers = await asyncio.gather(*[
                self._ask("elicitation/create", {"mode": "form", "message": f"q{i}",
                                                 "requestedSchema": {"type": "object", "properties": {}}}, related)
                for i in range(int(args.get("n", 1)))
            ])
            return _text(",".join(str((a.get("result") or a.get("error") or {}).get("action", "error")) for a in answers))
        if name == "ask_and_go":
            # Asks, then answers its call without waiting (a handler that gave up on its question).
            await self._say(jsonrpc.request(next(self._ids), "roots/list"), related)
            return _text("went on")
        if name == "sample":
            sp: Message = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}
            if args.get("context"):
                sp["includeContext"] = args["context"]
            answer = await self._ask("sampling/createMessage", sp, related)
            return _text(str((answer.get("result") or {}).get("content", {}).get("text", "error")))
        if name == "roots":
            answer = await self._ask("roots/list", None, related)
            return _text(str(len((answer.get("result") or {}).get("roots", []))))
        if name == "allowed":
            roots = (self.roots or {}).get("result", {}).get("roots", [])
            return _text(",".join(r["uri"] for r in roots) or "none")
        if name == "progress":
            token = (params.get("_meta") or {}).get("progressToken")
            for step in [1, 2, 2, 3][: int(args.get("steps", 4))]:
                if token is not None:
                    await self._say(jsonrpc.notification("notifications/progress", {"progressToken": token, "progress": step}),
                                    related)
            await self._say(jsonrpc.notification("notifications/message", {"level": "info", "data": "working"}), related)
            return _text("done")
        if name == "block":
            self.transport.blocking.set()
            if self.transport.bank is not None:
                self.transport.bank.blocked.put_nowait(self)
            await self.release.wait()
            return _text("released")
        return {"content": [], "isError": True}

    async def notify(self, method: str, params: Message | None = None) -> None:
        """An unsolicited notification (list_changed, resources/updated)."""
        await self._say(jsonrpc.notification(method, params or {}), None)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


def _text(text: str) -> Message:
    return {"content": [{"type": "text", "text": text}], "isError": False}


class FakeLegacyTransport(LegacyTransport):
    kind = "fake"

    def __init__(self, attribute: bool = False, blocking: asyncio.Event | None = None, bank: TransportBank | None = None,
                 roots_on_init: bool = False) -> None:
        super().__init__()
        self.bank = bank
        self.attribute = attribute
        self.roots_on_init = roots_on_init
        self.blocking = blocking or asyncio.Event()
        """Set when a ``block`` call reached the server."""
        self.server = FakeLegacyServer(self)
        self.opened = 0
        self.closed = False

    async def open(self) -> None:
        self.opened += 1
        if self.opened == 1 and self.bank is not None:
            self.bank.live += 1
            self.bank.peak = max(self.bank.peak, self.bank.live)

    async def send(self, msg: Message) -> None:
        self.server.handle(jsonrpc.loads(jsonrpc.dumps(msg)))  # bytes on the wire, as a real transport

    async def deliver_from_server(self, msg: Message, related: Any) -> None:
        await self._deliver(msg, related)

    async def close(self) -> None:
        if not self.closed and self.opened and self.bank is not None:
            self.bank.live -= 1
        self.closed = True
        await self.server.close()


class TransportBank:
    """A ``TransportFactory`` that remembers every transport it made (one per upstream session)."""

    def __init__(self, attribute: bool = False, roots_on_init: bool = False) -> None:
        self.attribute = attribute
        self.roots_on_init = roots_on_init
        self.made: list[FakeLegacyTransport] = []
        self.blocking = asyncio.Event()
        """Set when a ``block`` call reached any of the servers."""
        self.blocked: asyncio.Queue[FakeLegacyServer] = asyncio.Queue()
        """Each server whose ``block`` call started (once per call)."""
        self.live = 0
        self.peak = 0
        """Sessions opened and not yet closed (a stdio upstream's children), now and at most."""

    def __call__(self, _ctx: Any) -> FakeLegacyTransport:
        transport = FakeLegacyTransport(self.attribute, self.blocking, self, self.roots_on_init)
        self.made.append(transport)
        return transport


async def lose(transport: FakeLegacyTransport, why: str = "fake server died") -> None:
    """The session dies (a stdio child exiting, an HTTP 404): the bridge is told as a real transport would."""
    await transport.server.close()
    await transport._lost(why)

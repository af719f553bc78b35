"""A minimal in-process ASGI client that streams: the 2025 front's GET stream never ends, so a client that
buffers whole bodies (httpx's ASGITransport, Starlette's TestClient) cannot read it. Each response's body
chunks are read as the app sends them; SSE events are parsed with ``mcp_eras.bridge.sse.iter_sse``."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcp_eras.bridge.sse import iter_sse
from mcp_eras.bridge.translate import jsonrpc

import spec

LEGACY_VERSION = "2025-11-25"
WAIT = 10.0
"""Deadline for any single expected message (never a sleep: a wait that fails loudly)."""


class StreamedResponse:
    def __init__(self, status: int, headers: dict[str, str], queue: asyncio.Queue[dict[str, Any]],
                 task: asyncio.Task[None], disconnect: asyncio.Event) -> None:
        self.status = status
        self.headers = headers
        self._queue = queue
        self._task = task
        self._disconnect = disconnect
        self._done = False
        self._lines: AsyncIterator[Any] | None = None

    async def _chunks(self) -> AsyncIterator[bytes]:
        while not self._done:
            async with asyncio.timeout(WAIT):
                message = await self._queue.get()
            if message["type"] != "http.response.body":
                continue
            self._done = not message.get("more_body", False)
            yield message.get("body", b"")

    async def body(self) -> bytes:
        return b"".join([chunk async for chunk in self._chunks()])

    async def json(self) -> Any:
        return jsonrpc.loads(await self.body())

    @property
    def is_sse(self) -> bool:
        return self.headers.get("content-type", "").startswith("text/event-stream")

    async def _text_lines(self) -> AsyncIterator[str]:
        buffer = ""
        async for chunk in self._chunks():
            buffer += chunk.decode()
            *lines, buffer = buffer.split("\n")
            for line in lines:
                yield line

    async def next_event(self) -> tuple[str | None, dict[str, Any]]:
        """The next SSE event carrying a JSON-RPC frame (priming events and keep-alives skipped)."""
        if self._lines is None:
            self._lines = iter_sse(self._text_lines())
        async with asyncio.timeout(WAIT):
            async for event in self._lines:
                if event.data:
                    return event.id, jsonrpc.loads(event.data)
        raise AssertionError("the stream ended")

    async def messages(self) -> list[dict[str, Any]]:
        """Every frame of a stream that ends (a POST's SSE stream ends after its response)."""
        out = []
        with contextlib.suppress(AssertionError):
            while True:
                out.append((await self.next_event())[1])
        return out

    async def close(self) -> None:
        self._disconnect.set()
        with contextlib.suppress(BaseException):
            async with asyncio.timeout(WAIT):
                await self._task


class LegacyClient:
    """A 2025 client of the bridge's HTTP front, driving the ASGI app directly."""

    def __init__(self, app: Any, authorization: str | None = None) -> None:
        self.app = app
        self.authorization = authorization
        self.session_id: str | None = None
        self.version: str | None = LEGACY_VERSION
        self.open: list[StreamedResponse] = []

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        h = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        if self.session_id:
            h["mcp-session-id"] = self.session_id
        if self.version:
            h["mcp-protocol-version"] = self.version
        if self.authorization:
            h["authorization"] = self.authorization
        h.update(extra or {})
        return h

    async def send(self, method: str, body: Any = None, headers: dict[str, str] | None = None) -> StreamedResponse:
        raw = body if isinstance(body, bytes) else (jsonrpc.dumps(body) if body is not None else b"")
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        disconnect = asyncio.Event()
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": raw, "more_body": False}
            await disconnect.wait()
            return {"type": "http.disconnect"}

        async def send_(message: dict[str, Any]) -> None:
            await queue.put(message)

        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
            "path": "/mcp", "raw_path": b"/mcp", "query_string": b"", "root_path": "",
            "headers": [(k.lower().encode(), v.encode()) for k, v in self.headers(headers).items()],
            "client": ("127.0.0.1", 40000), "server": ("127.0.0.1", 8000),
        }
        task = asyncio.create_task(self.app(scope, receive, send_))
        async with asyncio.timeout(WAIT):
            start = await queue.get()
        assert start["type"] == "http.response.start", start
        headers_out = {k.decode().lower(): v.decode() for k, v in start.get("headers", [])}
        response = StreamedResponse(start["status"], headers_out, queue, task, disconnect)
        self.open.append(response)
        return response

    async def post(self, msg: dict[str, Any], headers: dict[str, str] | None = None) -> StreamedResponse:
        return await self.send("POST", msg, headers)

    async def rpc(self, msg: dict[str, Any]) -> dict[str, Any]:
        """POST a request and return its response frame (from JSON or the end of an SSE stream)."""
        response = await self.post(msg)
        if response.is_sse:
            frames = await response.messages()
            final = [f for f in frames if "id" in f and "method" not in f and f["id"] == msg["id"]]
            assert final, frames
            return final[-1]
        return await response.json()

    async def initialize(self, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        init = jsonrpc.request(0, "initialize", {"protocolVersion": LEGACY_VERSION, "capabilities": capabilities or {},
                                                 "clientInfo": {"name": "inprocess", "version": "1.0"}})
        spec.legacy("InitializeRequest", init)
        response = await self.post(init)
        assert response.status == 200
        self.session_id = response.headers["mcp-session-id"]
        frame = await response.json()
        spec.legacy("InitializeResult", frame["result"])
        done = await self.post(jsonrpc.notification("notifications/initialized"))
        assert done.status == 202
        return frame["result"]

    async def get_stream(self, headers: dict[str, str] | None = None) -> StreamedResponse:
        return await self.send("GET", None, {"accept": "text/event-stream", **(headers or {})})

    async def aclose(self) -> None:
        for response in self.open:
            await response.close()

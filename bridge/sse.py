"""Server-Sent Events over httpx: the upstreams' response bodies read as events (both eras).

The framing and the parser are pure (``mcp_eras.bridge.translate.sse``); this shell feeds them the bytes of a
response and names the transport's error for an oversized event. The pure names the fronts and the scale-out
runtime write with are re-exported here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx

from mcp_eras.bridge.translate import sse as pure
from mcp_eras.bridge.translate.sse import KEEPALIVE, MAX_EVENT, SSE_HEADERS, LineSplitter, SseEvent, SseParser, sse_event, sse_priming

__all__ = ["KEEPALIVE", "MAX_EVENT", "SSE_HEADERS", "EventTooLarge", "ResponseEvents", "SseEvent", "SseParser", "iter_sse",
           "sse_event", "sse_events", "sse_lines", "sse_priming"]


class EventTooLarge(httpx.RemoteProtocolError, pure.EventTooLarge):
    """An event stream line or event over ``SseParser.max_event`` bytes (the upstream's fault: the response is
    abandoned like any other broken one)."""


async def sse_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """Lines of an event stream from its body chunks (``translate.sse.LineSplitter``)."""
    splitter = LineSplitter()
    async for chunk in chunks:
        for line in splitter.feed(chunk):
            yield line
    for line in splitter.end():
        yield line


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[SseEvent]:
    """Events from decoded lines (``sse_lines``, or text already split)."""
    parser = SseParser()
    async for raw in lines:
        event = parser.line(raw.rstrip("\r").encode())
        if event is not None:
            yield event
    for event in parser.end():
        yield event


class ResponseEvents:
    """The events of a response body, a batch per part of the body read: ``sse_events`` without an async generator
    per response (its first-iteration hook, its finalizer and its close) when the response can be read a part at a
    time (``lean_http.LeanResponse.read_some``); any other response is read through its ``aiter_bytes``."""

    __slots__ = ("_read", "_chunks", "_parser", "_ended")

    def __init__(self, response: Any, max_event: int = MAX_EVENT) -> None:
        self._read: Callable[[], Awaitable[bytes]] | None = getattr(response, "read_some", None)
        self._chunks: AsyncIterator[bytes] | None = response.aiter_bytes() if self._read is None else None
        self._parser = SseParser(max_event, EventTooLarge)
        self._ended = False

    async def next(self) -> list[SseEvent] | None:
        """The events the next part of the body completes (maybe none); None once the body and its events are over."""
        if self._ended:
            return None
        if self._read is not None:
            chunk: bytes | None = await self._read() or None
        else:
            assert self._chunks is not None
            chunk = await anext(self._chunks, None)
        if chunk is not None:
            return self._parser.feed(chunk)
        self._ended = True
        return self._parser.end()

    async def aclose(self) -> None:
        """Stop reading early (the caller has what it needed)."""
        self._ended = True
        chunks = getattr(self._chunks, "aclose", None)
        if chunks is not None:
            await chunks()


async def sse_events(chunks: AsyncIterator[bytes], max_event: int = MAX_EVENT) -> AsyncIterator[SseEvent]:
    """The events of a response body, from its chunks (the HTTP upstreams' parser)."""
    parser = SseParser(max_event, EventTooLarge)
    async for chunk in chunks:
        for event in parser.feed(chunk):
            yield event
    for event in parser.end():
        yield event

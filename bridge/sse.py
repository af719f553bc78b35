"""Server-Sent Events: framing for the HTTP fronts, parsing for the HTTP upstreams (both eras)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

from mcp_eras.bridge import jsonrpc
from mcp_eras.bridge.jsonrpc import Message

SSE_HEADERS = {"Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no", "Connection": "keep-alive"}
KEEPALIVE = b": keep-alive\n\n"


def sse_event(msg: Message, event_id: str | None = None) -> bytes:
    """One SSE ``message`` event carrying a JSON-RPC frame (orjson never emits raw newlines)."""
    head = b"id: " + event_id.encode() + b"\n" if event_id is not None else b""
    return head + b"event: message\ndata: " + jsonrpc.dumps(msg) + b"\n\n"


def sse_priming(event_id: str, retry_ms: int | None = None) -> bytes:
    """2025 priming event: an id and empty data, so the client can resume with Last-Event-ID."""
    retry = f"retry: {retry_ms}\n".encode() if retry_ms is not None else b""
    return retry + b"id: " + event_id.encode() + b"\ndata: \n\n"


@dataclass
class SseEvent:
    event: str
    data: str
    id: str | None
    retry: int | None


_EOL = re.compile(rb"\r\n|\r|\n")


async def sse_lines(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """Lines of an event stream from its body chunks (CRLF, LF or CR ends a line: WHATWG HTML §9.2.5
    Parsing an event stream), decoded as UTF-8. Splits bytes first and decodes each line once: cheaper
    than a text decoder in front of a line splitter (httpx ``aiter_lines``) on the hot path."""
    pending = b""
    async for chunk in chunks:
        data = pending + chunk if pending else chunk
        if b"\r" not in data:
            *lines, pending = data.split(b"\n")
        else:
            held = data.endswith(b"\r")  # maybe the first half of a CRLF split across chunks
            *lines, pending = _EOL.split(data[:-1] if held else data)
            if held:
                pending += b"\r"
        for line in lines:
            yield line.decode("utf-8", "replace")
    if pending.endswith(b"\r"):
        yield pending[:-1].decode("utf-8", "replace")  # a held CR at the very end ends its line
    elif pending:
        yield pending.decode("utf-8", "replace")


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[SseEvent]:
    event, data, eid, retry = "message", [], None, None
    async for raw in lines:
        line = raw.rstrip("\r")
        if line == "":
            if data or eid is not None:
                yield SseEvent(event, "\n".join(data), eid, retry)
            event, data, eid, retry = "message", [], None, None
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id":
            eid = value
        elif name == "retry" and value.isdigit():
            retry = int(value)
    if data:
        yield SseEvent(event, "\n".join(data), eid, retry)

"""Server-Sent Events, pure: the framing the HTTP fronts write and the parser the HTTP upstreams read (both eras).

2025-11-25 basic/transports.mdx §Streamable HTTP and 2026-07-28 basic/transports.mdx carry JSON-RPC frames as SSE
``message`` events; the event stream format is WHATWG HTML §9.2 (Server-sent events). Bytes in, events out: the
shells (``mcp_eras.bridge.sse`` for the upstreams' response bodies, the fronts' streaming responses) own the
reading and the writing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.jsonrpc import Message

SSE_HEADERS = {"Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no", "Connection": "keep-alive"}
KEEPALIVE = b": keep-alive\n\n"


def sse_event(msg: Message, event_id: str | None = None) -> bytes:
    """One SSE ``message`` event carrying a JSON-RPC frame (orjson never emits raw newlines)."""
    return sse_data_event(jsonrpc.dumps(msg), event_id)


def sse_data_event(data: bytes, event_id: str | None = None) -> bytes:
    """``sse_event`` of a frame serialized already (one line of JSON)."""
    head = b"id: " + event_id.encode() + b"\n" if event_id is not None else b""
    return head + b"event: message\ndata: " + data + b"\n\n"


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


class EventTooLarge(ValueError):
    """An event stream line or event over ``SseParser.max_event`` bytes."""


_EOL = re.compile(rb"\r\n|\r|\n")


class LineSplitter:
    """Lines of an event stream from its body chunks (CRLF, LF or CR ends a line: WHATWG HTML §9.2.5 Parsing an
    event stream), decoded as UTF-8. Splits bytes first and decodes each line once: cheaper than a text decoder in
    front of a line splitter (httpx ``aiter_lines``)."""

    __slots__ = ("_pending",)

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, chunk: bytes) -> list[str]:
        data = self._pending + chunk if self._pending else chunk
        if data.find(b"\r") < 0:  # (``find``, not ``in``: see _whole_message)
            *lines, self._pending = data.split(b"\n")
        else:
            held = data.endswith(b"\r")  # maybe the first half of a CRLF split across chunks
            *lines, pending = _EOL.split(data[:-1] if held else data)
            self._pending = pending + b"\r" if held else pending
        return [line.decode("utf-8", "replace") for line in lines]

    def end(self) -> list[str]:
        """The stream ended: its unterminated last line, if any (a held CR at the very end ends its line)."""
        pending, self._pending = self._pending, b""
        if pending.endswith(b"\r"):
            pending = pending[:-1]
            return [pending.decode("utf-8", "replace")]
        return [pending.decode("utf-8", "replace")] if pending else []


MAX_EVENT = 16 * 1024 * 1024
"""Largest event (and line) of an upstream event stream: as large as one stdio frame (``--max-line-bytes``)."""


class SseParser:
    """An event stream parser over bytes (sans-I/O): ``feed`` body chunks, get the events they complete.

    WHATWG HTML §9.2.6 (Interpreting an event stream): CRLF, LF or CR ends a line (a CR at a chunk's end is
    held until the next byte shows whether an LF follows), a blank line dispatches, ``:`` starts a comment,
    one space after the colon is dropped, ``retry`` takes digits only. As the line parser before it: an event
    is dispatched when it has data or an id, and the data of an unterminated last event is kept at ``end``.
    The hot path splits and dispatches bytes, and decodes each event's data once (not each line)."""

    __slots__ = ("_pending", "_event", "_data", "_id", "_retry", "_size", "max_event", "too_large")

    def __init__(self, max_event: int = MAX_EVENT, too_large: Callable[[str], Exception] = EventTooLarge) -> None:
        self.max_event = max_event
        self.too_large = too_large
        """What an oversized line or event raises (an HTTP upstream's shell names its transport's error class)."""
        self._pending = b""
        self._event: bytes | None = None
        self._data: list[bytes] = []
        self._id: bytes | None = None
        self._retry: int | None = None
        self._size = 0

    def feed(self, chunk: bytes) -> list[SseEvent]:
        if not self._pending and self._event is None and not self._data and self._id is None and self._retry is None:
            event = _whole_message(chunk, self.max_event)  # one whole event, nothing pending: what SDK servers write
            if event is not None:
                return [event]
        data = self._pending + chunk if self._pending else chunk
        held = False
        if data.find(b"\r") >= 0:
            held = data.endswith(b"\r")  # maybe the first half of a CRLF split across chunks
            data = (data[:-1] if held else data).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = data.split(b"\n")
        pending = lines.pop()
        if len(pending) > self.max_event:
            raise self.too_large(f"upstream event stream line over {self.max_event} bytes")
        self._pending = pending + b"\r" if held else pending
        out = []
        for line in lines:
            if not line:
                if (event := self._blank()) is not None:
                    out.append(event)
            elif line.startswith(b"data:"):  # the usual line, as ``line`` takes it (without its dispatch)
                self._add_data(line[6:] if line[5:6] == b" " else line[5:])
            elif line == b"event: message":
                self._event = b"message"
            else:
                self.line(line)
        return out

    def line(self, line: bytes) -> SseEvent | None:
        """One line without its end; returns the event a blank line dispatches."""
        if not line:
            return self._blank()
        if line[0] == 0x3A:  # ":" a comment (keep-alive)
            return None
        name, _, value = line.partition(b":")
        if value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            self._add_data(value)
        elif name == b"event":
            self._event = value
        elif name == b"id":
            self._id = value
        elif name == b"retry" and value.isdigit():
            self._retry = int(value)
        return None

    def _add_data(self, value: bytes) -> None:
        self._size += len(value) + 1
        if self._size > self.max_event:
            raise self.too_large(f"upstream event over {self.max_event} bytes")
        self._data.append(value)

    def end(self) -> list[SseEvent]:
        """The stream ended: its unterminated last line, and the event it leaves with data, if any."""
        pending, self._pending = self._pending, b""
        if pending.endswith(b"\r"):
            pending = pending[:-1]
        if pending:
            self.line(pending)
        return [self._dispatch()] if self._data else []

    def _blank(self) -> SseEvent | None:
        if self._data or self._id is not None:
            return self._dispatch()
        self._event, self._retry = None, None
        return None

    def _dispatch(self) -> SseEvent:
        data = self._data
        text = (data[0] if len(data) == 1 else b"\n".join(data)).decode("utf-8", "replace")
        event = SseEvent("message" if self._event is None else self._event.decode("utf-8", "replace"), text,
                         None if self._id is None else self._id.decode("utf-8", "replace"), self._retry)
        self._event, self._data, self._id, self._retry, self._size = None, [], None, None, 0
        return event


def _whole_message(chunk: bytes, max_event: int) -> SseEvent | None:
    """``chunk`` as exactly one ``message`` event of one data line (``event: message``, ``data: ...``, a blank line;
    CRLF or LF line ends), as ``SseParser.feed`` would dispatch it from a clear state (WHATWG HTML §9.2.6: the blank
    line dispatches, one space after the colon is dropped, a CR or LF inside would end the line); None for anything
    else, which the line parser then takes."""
    if chunk.startswith(b"event: message\r\ndata: ") and chunk.endswith(b"\r\n\r\n"):
        data = chunk[22:-4]
    elif chunk.startswith(b"event: message\ndata: ") and chunk.endswith(b"\n\n"):
        data = chunk[21:-2]
    else:
        return None
    # ``find``, not ``in``: CPython's ``bytes.__contains__`` first tries its argument as an integer (``65 in b"A"``), so a
    # bytes argument costs a TypeError formatted and cleared, about 1,800 instructions per test (callgrind).
    if data.find(b"\n") >= 0 or data.find(b"\r") >= 0 or len(data) + 1 > max_event:
        return None
    return SseEvent("message", data.decode("utf-8", "replace"), None, None)

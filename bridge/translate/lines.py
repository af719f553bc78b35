"""Newline-delimited frames out of a stdio child's stdout chunks (sans-I/O: bytes in, complete lines out).

2025-11-25 basic/transports.mdx §stdio: messages are delimited by newlines and MUST NOT contain embedded newlines.
A line longer than ``max_line_bytes`` (its newline not counted) is over the frame limit: it is never held whole. Its
bytes are dropped as they arrive and, at its newline, an ``Oversized`` (its size, first and last bytes) takes its
place in the output, so the stream resynchronises on the next line and the frames after it are served.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, Message, RequestId

EDGE_BYTES = 256
"""Bytes kept of each end of an oversized line: enough to find a response's ``id`` (first or last member)."""


@dataclass(frozen=True, slots=True)
class Oversized:
    """A line dropped for being over the frame limit: ``size`` bytes (newline not counted), and its two ends."""

    size: int
    head: bytes
    tail: bytes


class LineSplitter:
    """Cuts chunks into lines. ``feed`` returns the complete lines (without their newline) in order, an ``Oversized``
    for each line over ``max_line_bytes``; the bytes after the last newline wait for the next chunk. At most
    ``max_line_bytes`` (plus ``2 * EDGE_BYTES``) are ever held back."""

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self.oversized = 0
        """Lines dropped for being over the limit so far."""
        self._partial = bytearray()
        self._skip: list[int] | None = None
        """While inside an oversized line: its size so far (the rest of its state is ``_head``/``_tail``)."""
        self._head = b""
        self._tail = b""

    @property
    def overflow(self) -> bool:
        """Inside a line over the limit now (its bytes are being dropped until its newline)."""
        return self._skip is not None

    def feed(self, data: bytes) -> list[bytes | Oversized]:
        pieces = data.split(b"\n")
        rest = pieces.pop()
        out: list[bytes | Oversized] = []
        limit = self.max_line_bytes
        for piece in pieces:
            if self._skip is None and not self._partial and len(piece) <= limit:
                out.append(piece)  # the usual case: a whole line in one chunk
                continue
            self._extend(piece)
            out.append(self._end_line())
        self._extend(rest)
        return out

    def finish(self) -> bytes | Oversized:
        """At end of stream: the last line when it had no newline (``b""`` when none)."""
        if self._skip is None and not self._partial:
            return b""
        return self._end_line()

    def _extend(self, piece: bytes) -> None:
        if not piece:
            return
        if self._skip is not None:
            self._skip[0] += len(piece)
            if len(self._head) < EDGE_BYTES:
                self._head += piece[:EDGE_BYTES - len(self._head)]
            self._tail = (self._tail + piece[-EDGE_BYTES:])[-EDGE_BYTES:]
            return
        self._partial += piece
        if len(self._partial) > self.max_line_bytes:
            self._skip = [len(self._partial)]
            self._head = bytes(self._partial[:EDGE_BYTES])
            self._tail = bytes(self._partial[-EDGE_BYTES:])
            self._partial = bytearray()

    def _end_line(self) -> bytes | Oversized:
        if self._skip is None:
            line = bytes(self._partial)
            self._partial.clear()
            return line
        dropped = Oversized(self._skip[0], self._head, self._tail)
        self._skip, self._head, self._tail = None, b"", b""
        self.oversized += 1
        return dropped


_ID = rb'(-?\d{1,18}|"[^"\\]{0,200}")'
_VERSION = rb'(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?'
_ID_FIRST = re.compile(rb'^\s*\{\s*' + _VERSION + rb'"id"\s*:\s*' + _ID + rb'\s*,\s*' + _VERSION + rb'"(?:result|error)"\s*:')
_RESULT_FIRST = re.compile(rb'^\s*\{\s*' + _VERSION + rb'"(?:result|error)"\s*:')
_ID_LAST = re.compile(rb'"id"\s*:\s*' + _ID + rb'\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$')


def oversized_response_id(line: Oversized) -> RequestId | None:
    """The ``id`` of the response an oversized line carried, when its ends show it (a response whose ``id`` comes
    before its ``result``/``error``, as the Python SDK writes it, or last, as the TypeScript SDK does); else None
    (a request or notification, or an order that hides it)."""
    match = _ID_FIRST.match(line.head)
    if match is None and _RESULT_FIRST.match(line.head):
        match = _ID_LAST.search(line.tail)
    if match is None:
        return None
    try:
        value = json.loads(match.group(1))
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None


def over_limit_error(rid: RequestId, line: Oversized, max_line_bytes: int) -> Message:
    """What the caller whose answer was over the frame limit receives in its place (-32603, the limit named)."""
    return {"jsonrpc": "2.0", "id": rid, "error": {
        "code": INTERNAL_ERROR,
        "message": f"Upstream answer of {line.size} bytes is over the frame limit (max_line_bytes = {max_line_bytes})",
        "data": {"limit": "max_line_bytes", "maxLineBytes": max_line_bytes, "bytes": line.size}}}

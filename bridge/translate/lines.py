"""Newline-delimited frames out of a stdio child's stdout chunks (sans-I/O: bytes in, complete lines out).

2025-11-25 basic/transports.mdx §stdio: messages are delimited by newlines and MUST NOT contain embedded newlines.
A line longer than ``max_line_bytes`` (its newline not counted) is an overflow, as ``asyncio.StreamReader.readline``
with that limit judges it: from then on the stream is unusable and ``feed`` returns nothing more.
"""

from __future__ import annotations


class LineSplitter:
    """Cuts chunks into lines. ``feed`` returns the complete lines (without their newline) in order; the bytes after
    the last newline wait for the next chunk. At most ``max_line_bytes`` are ever held back."""

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        self.overflow = False
        """A line went over ``max_line_bytes``: the lines before it were returned, nothing after it will be."""
        self._partial = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        if self.overflow:
            return []
        lines = data.split(b"\n")
        tail = lines.pop()
        if lines and self._partial:
            self._partial += lines[0]
            lines[0] = bytes(self._partial)
            self._partial.clear()
        self._partial += tail
        if lines and max(map(len, lines)) > self.max_line_bytes:
            self._overflowed()
            return lines[:next(i for i, line in enumerate(lines) if len(line) > self.max_line_bytes)]
        if len(self._partial) > self.max_line_bytes:
            self._overflowed()
        return lines

    def finish(self) -> bytes:
        """At end of stream: the last line when it had no newline (``b""`` when none, or after an overflow)."""
        rest = bytes(self._partial)
        self._partial.clear()
        return b"" if self.overflow else rest

    def _overflowed(self) -> None:
        self.overflow = True
        self._partial = bytearray()

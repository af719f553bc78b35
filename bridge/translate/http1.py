"""HTTP/1.1 response parsing (sans-I/O): the head, the body's framing, chunked decoding.

RFC 9112: §4 status line, §5 field lines (obsolete line folding refused), §6.3 message body length,
§7.1 chunked transfer coding. Every part has a size cap with a named error (``ProtocolError`` and its
``HeadTooLarge``; the upstream client, ``bridge.upstream.lean_http``, raises them as httpx's
``RemoteProtocolError``, which the upstreams already treat as a broken answer).
"""

from __future__ import annotations

import re

MAX_HEAD = 64 * 1024
"""Largest response head accepted (status line + headers), and largest block of chunked trailers."""

MAX_CHUNK_LINE = 4096
"""Longest chunk-size line (size and chunk extensions)."""


class ProtocolError(ValueError):
    """A response that breaks HTTP/1.1's syntax or framing (RFC 9112)."""


class HeadTooLarge(ProtocolError):
    """The response head (or the chunked trailers) ran past ``MAX_HEAD`` bytes."""


_HEX = re.compile(rb"[0-9A-Fa-f]{1,15}")


def parse_head(raw: bytes) -> tuple[int, bool, dict[str, str], list[str]]:
    """(status, keep-alive, fields, Set-Cookie values) of a response head without its blank line.

    Field names are lower-cased; a repeated field's values are joined with ", " (as ``httpx.Headers.get``);
    values are UTF-8, or Latin-1 when they are not valid UTF-8 (httpx's order, after ASCII)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    status_line, *lines = text.split("\r\n")
    version, _, rest = status_line.partition(" ")
    code = rest[:3]
    if (version not in ("HTTP/1.1", "HTTP/1.0") or len(code) != 3 or not (code.isascii() and code.isdigit())
            or rest[3:4] not in ("", " ")):
        raise ProtocolError(f"malformed status line from upstream: {status_line[:80]!r}")
    headers: dict[str, str] = {}
    cookies: list[str] = []
    for line in lines:
        name, sep, value = line.partition(":")
        if not sep or not name or line[0] in " \t":
            raise ProtocolError("malformed header line from upstream")
        name = name.strip().lower()
        value = value.strip()
        if name in headers:
            headers[name] += ", " + value
        else:
            headers[name] = value
        if name == "set-cookie":
            cookies.append(value)
    length = headers.get("content-length")
    if length is not None and "," in length and len(values := {v.strip() for v in length.split(",")}) == 1:
        headers["content-length"] = values.pop()  # identical repeated lengths are one (RFC 9110 §8.6)
    connection = headers.get("connection", "").lower()
    keep_alive = "close" not in connection and (version == "HTTP/1.1" or "keep-alive" in connection)
    return int(code), keep_alive, headers, cookies


class HeadCache:
    """``parse_head`` remembered for the last ``size`` distinct small heads: an upstream sends the same head again and
    again, apart from its Date (once a second) and a body's length. Each answer is a fresh copy, as parsed."""

    __slots__ = ("size", "max_bytes", "_heads")

    def __init__(self, size: int = 32, max_bytes: int = 1024) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self._heads: dict[bytes, tuple[int, bool, dict[str, str], list[str]]] = {}

    def parse(self, raw: bytes) -> tuple[int, bool, dict[str, str], list[str]]:
        heads = self._heads
        known = heads.get(raw)
        if known is None:
            known = parse_head(raw)  # a malformed head raises, and is not remembered
            if len(raw) <= self.max_bytes:
                if len(heads) >= self.size:
                    del heads[next(iter(heads))]  # the oldest
                heads[raw] = known
        status, keep_alive, headers, cookies = known
        return status, keep_alive, dict(headers), list(cookies)


def framing(status: int, headers: dict[str, str]) -> tuple[Dechunker | None, int | None]:
    """How the body ends (RFC 9112 §6.3): (a dechunker, None), (None, its length) or (None, None) for
    "at the connection's end"."""
    if status in (204, 304) or status < 200:
        return None, 0
    coding = headers.get("transfer-encoding")
    if coding is not None:
        return (Dechunker(), None) if "chunked" in coding.lower() else (None, None)
    length = headers.get("content-length")
    if length is None:
        return None, None
    if not (length.isascii() and length.isdigit()):
        values = {v.strip() for v in length.split(",")}  # repeated identical fields are one length
        length = values.pop() if len(values) == 1 else ""
        if not (length.isascii() and length.isdigit()):
            raise ProtocolError("invalid Content-Length from upstream")
    return None, int(length)


_SIZE, _DATA, _DATA_END, _TRAILERS = range(4)


class Dechunker:
    """The chunked transfer coding, decoded from a connection's buffer as far as it goes."""

    __slots__ = ("done", "_state", "_left", "_trailer_bytes")

    def __init__(self) -> None:
        self.done = False
        self._state = _SIZE
        self._left = 0
        self._trailer_bytes = 0

    def feed(self, buf: bytearray) -> bytes:
        """Consume what ``buf`` holds of the body up to the end of one chunk's data; return that data (b"" when
        none is there yet). Called again, it goes on with the next chunk; ``done`` after the last."""
        while not self.done and buf:  # (every state waits for more when the buffer is empty)
            state = self._state
            if state == _SIZE:
                end = buf.find(b"\r\n")
                if 0 < end < 16 and _HEX.fullmatch(buf, 0, end):  # a bare size (the usual line): no copy, no split
                    n = int(buf[:end], 16)
                    start = end + 2
                    if not n and buf[start:start + 2] == b"\r\n":  # the last chunk, without trailers (the usual end)
                        del buf[:start + 2]
                        self.done = True
                        return b""
                    if n and len(buf) >= start + n + 2 and buf[start + n] == 13 and buf[start + n + 1] == 10:
                        # the whole chunk is here, well ended (the usual case): one slice
                        data = bytes(buf[start:start + n])
                        del buf[:start + n + 2]
                        return data
                    del buf[:start]
                    self._left = n
                    self._state = _DATA if n else _TRAILERS
                    continue
            if state == _DATA:
                if not buf:
                    break
                n = self._left
                if len(buf) < n:
                    data = bytes(buf)
                    self._left = n - len(buf)
                    buf.clear()
                    return data
                data = bytes(buf[:n])
                del buf[:n]
                self._state = _DATA_END
                return data
            if state == _DATA_END:
                if len(buf) < 2:
                    break
                if buf[0] != 13 or buf[1] != 10:
                    raise ProtocolError("malformed chunk end from upstream")
                del buf[:2]
                self._state = _SIZE
                continue
            end = buf.find(b"\r\n")
            if end < 0:
                if state == _SIZE and len(buf) > MAX_CHUNK_LINE:
                    raise ProtocolError("chunk size line from upstream too long")
                if state == _TRAILERS and self._trailer_bytes + len(buf) > MAX_HEAD:
                    raise HeadTooLarge(f"upstream chunked trailers over {MAX_HEAD} bytes")
                break
            line = bytes(buf[:end])
            del buf[:end + 2]
            if state == _TRAILERS:
                self._trailer_bytes += end + 2
                if self._trailer_bytes > MAX_HEAD:
                    raise HeadTooLarge(f"upstream chunked trailers over {MAX_HEAD} bytes")
                self.done = not line
                continue
            if end > MAX_CHUNK_LINE:
                raise ProtocolError("chunk size line from upstream too long")
            size = line.split(b";", 1)[0].strip(b" \t")
            if not _HEX.fullmatch(size):
                raise ProtocolError("malformed chunk size from upstream")
            self._left = int(size, 16)
            self._state = _DATA if self._left else _TRAILERS
        return b""

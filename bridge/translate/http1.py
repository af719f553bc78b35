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
    if length is not None and "transfer-encoding" in headers:
        keep_alive = False  # Transfer-Encoding decides this body; the connection is not trusted after it (RFC 9112 §6.3)
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
        if coding == "chunked":  # the usual field
            return Dechunker(), None
        # RFC 9112 §6.3 item 4: chunked as the final coding frames the body; without it the body runs to the close.
        codings = [c for c in (part.strip(" \t").lower() for part in coding.split(",")) if c]
        if not codings or codings[-1] != "chunked":
            return None, None
        if len(codings) > 1:  # another coding under chunked (or chunked twice): a body this client cannot decode
            raise ProtocolError(f"unsupported transfer coding from upstream: {coding[:80]!r}")
        return Dechunker(), None
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


# --- requests: the framing every HTTP front checks before its parser reads the bytes ---------------------

MAX_REQUEST_HEAD = 64 * 1024
"""Longest request head (request line and fields) the framing check follows; a longer one is refused (431)."""

Refusal = tuple[int, str]
"""(HTTP status, reason) of a request refused for its framing; the connection closes after the answer."""

_TOKEN_END = re.compile(rb"[ \t]")
_HEXDIGITS = re.compile(rb"[0-9A-Fa-f]+")
_R_HEAD, _R_BODY, _R_SIZE, _R_DATA, _R_DATA_END, _R_TRAILER = range(6)


def request_framing(head: bytes) -> int | Refusal:
    """The body length of a request whose head (without its blank line) is ``head``: its Content-Length, 0 without one,
    or -1 for the chunked coding; else the refusal. RFC 9112 refuses what two parsers could frame differently:
    obsolete line folding (§5.2), whitespace between a field name and its colon (§5.1), Content-Length together with
    Transfer-Encoding (§6.1, §6.3 item 3), Transfer-Encoding in HTTP/1.0 (§6.1), a coding list whose final coding
    is not chunked (§6.3 item 4), a Content-Length that is not one decimal number (§6.3 item 5; a repeated one is
    refused rather than merged, RFC 9110 §8.6 lets a recipient do either)."""
    lines = head.count(b"\r\n")
    if head.count(b"\n") != lines or head.count(b"\r") != lines:
        return 400, "Bad Request: a bare CR or LF in the request head"
    if head.find(b"\r\n ") >= 0 or head.find(b"\r\n\t") >= 0:
        return 400, "Bad Request: obsolete line folding in the request head"
    lower = head.lower()
    if lower.find(b"transfer-encoding") < 0:
        lengths = lower.count(b"content-length")
        if not lengths:
            return 0
        start = lower.find(b"\r\ncontent-length:") + 17
        if lengths == 1 and start > 16:  # the usual head: one Content-Length field, nothing unusual about it
            end = head.find(b"\r\n", start)
            value = head[start:end if end > 0 else len(head)].strip(b" \t")
            return int(value) if value.isdigit() else (400, "Bad Request: invalid Content-Length")
    return _framing_by_fields(head)


def _framing_by_fields(head: bytes) -> int | Refusal:
    """``request_framing`` field by field (a head with Transfer-Encoding, or an unusual Content-Length)."""
    lines = head.split(b"\r\n")
    lengths: list[bytes] = []
    codings: list[bytes] = []
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon or not name or _TOKEN_END.search(name):
            return 400, "Bad Request: malformed field line (whitespace before the colon, or no colon)"
        name = name.lower()
        if name == b"content-length":
            lengths.append(value.strip(b" \t"))
        elif name == b"transfer-encoding":
            codings += (c.strip(b" \t").lower() for c in value.split(b","))
    if codings:
        if lengths:
            return 400, "Bad Request: both Content-Length and Transfer-Encoding"
        if not lines[0].endswith(b" HTTP/1.1"):
            return 400, "Bad Request: Transfer-Encoding in an HTTP/1.0 request"
        codings = [c for c in codings if c]  # empty list elements are no codings (RFC 9110 §5.6.1)
        if not codings or codings[-1] != b"chunked" or codings.count(b"chunked") > 1:
            return 400, "Bad Request: chunked is not the one and final transfer coding"
        if len(codings) > 1:
            return 501, "Not Implemented: transfer coding " + b", ".join(codings[:-1]).decode("latin-1")
        return -1
    if len(lengths) > 1:
        return 400, "Bad Request: repeated Content-Length"
    if lengths and not lengths[0].isdigit():
        return 400, "Bad Request: invalid Content-Length"
    return int(lengths[0]) if lengths else 0


def declared_length(data: bytes, end: int) -> int | None:
    """The ``Content-Length`` of the request head ``data[:end]`` when it has the field spelt as clients send it
    (``Content-Length`` or ``content-length``, one decimal value), found without a pass over the whole head; else
    None. Only for a parser that refuses on its own what ``request_framing`` refuses (llhttp in its strict mode, as
    httptools runs it): then that field is the body's length."""
    pos = data.find(b"ontent-Length:", 0, end)
    if pos < 0:
        pos = data.find(b"ontent-length:", 0, end)
    if pos < 3 or data[pos - 1] not in (67, 99) or data[pos - 3] != 13 or data[pos - 2] != 10:
        return None
    stop = data.find(b"\r\n", pos + 14, end)
    value = data[pos + 14:stop if stop >= 0 else end].strip(b" \t")
    return int(value) if value.isdigit() else None


class RequestFraming:
    """Where each request of one connection begins and ends, followed as its bytes arrive (before the HTTP parser reads
    them): heads are checked with ``request_framing``; bodies are counted past (a Content-Length) or walked chunk by
    chunk (RFC 9112 §7.1), and a chunk whose declared size takes the body past ``max_body`` is refused at its size
    line (413), never waited for. A Content-Length over the cap is the application's to refuse (it answers that
    request: 413 and close, ``transport_guard.screen``)."""

    __slots__ = ("max_body", "parser_is_strict", "_state", "_left", "_total", "_partial", "_began")

    def __init__(self, max_body: int, parser_is_strict: bool = False) -> None:
        self.max_body = max_body
        self.parser_is_strict = parser_is_strict
        """The parser refuses by itself every head ``request_framing`` refuses (llhttp): a head with a plain
        Content-Length is then only measured (``declared_length``), not checked again; others are."""
        self._state = _R_HEAD
        self._left = 0
        self._total = 0
        self._partial = b""
        """An unfinished head, chunk-size or trailer line."""
        self._began = False
        """Whether the current request's first bytes came in an earlier ``feed``."""

    @property
    def between_requests(self) -> bool:
        """No request is partly received (nothing its sender may still be sending)."""
        return self._state == _R_HEAD and not self._partial

    def feed(self, data: bytes) -> tuple[int, bool, Refusal] | None:
        """Follow ``data``. None when it is well framed so far; else (offset, begun, refusal): ``data[:offset]`` holds
        earlier well-framed requests, ``begun`` says the refused one's first bytes came before this ``data``."""
        if self.parser_is_strict and self._state == _R_HEAD and not self._partial:
            # The usual data on a strict parser's connection: one request with a Content-Length, whole or its start.
            end = data.find(b"\r\n\r\n")
            length = declared_length(data, end) if end > 0 and data[0] not in (13, 10) else None
            if length is not None and length <= self.max_body:
                left = end + 4 + length - len(data)
                if not left:
                    return None
                if left > 0:
                    self._state, self._left, self._began = _R_BODY, left, True
                    return None
        i, n = 0, len(data)
        start = 0
        while i < n:
            state = self._state
            if state == _R_BODY or state == _R_DATA:
                step = min(self._left, n - i)
                self._left -= step
                i += step
                if not self._left:
                    if state == _R_BODY:
                        self._state, self._began = _R_HEAD, False
                    else:
                        self._state, self._left = _R_DATA_END, 2
                continue
            if state == _R_DATA_END:
                if data[i] != (13 if self._left == 2 else 10):
                    return self._refused(start, (400, "Bad Request: a chunk's data does not end with CRLF"))
                i += 1
                self._left -= 1
                if not self._left:
                    self._state = _R_SIZE
                continue
            if state == _R_HEAD and not self._partial:
                while i < n and data[i] in (13, 10):  # empty lines before a request line (RFC 9112 §2.2)
                    i += 1
                start, self._began = i, False
                if i == n:
                    break
            if state == _R_HEAD and self._partial:  # a head begun in an earlier feed: its end may straddle the two
                joined = self._partial + data[i:]
                end = joined.find(b"\r\n\r\n", max(0, len(self._partial) - 3))
                if end >= 0:
                    line, i = joined[:end], i + end + 4 - len(self._partial)
            else:  # a whole head, or a chunk-size or trailer line
                end = data.find(b"\r\n\r\n" if state == _R_HEAD else b"\n", i)
                if end >= 0:
                    line, i = self._partial + data[i:end], end + (4 if state == _R_HEAD else 1)
            if end < 0:
                self._partial += data[i:]
                if state == _R_HEAD and b"\n" in self._partial.replace(b"\r\n", b""):
                    return self._refused(start, (400, "Bad Request: a bare CR or LF in the request head"))
                if len(self._partial) > (MAX_REQUEST_HEAD if state == _R_HEAD else MAX_CHUNK_LINE):
                    return self._refused(start, (431, "Request Header Fields Too Large") if state == _R_HEAD
                                         else (400, "Bad Request: chunk line too long"))
                self._began = True
                return None
            self._partial = b""
            refusal = self._line(state, line)
            if refusal is not None:
                return self._refused(start, refusal)
        self._began = not self.between_requests
        return None

    def _refused(self, start: int, refusal: Refusal) -> tuple[int, bool, Refusal]:
        return (0 if self._began else start), self._began, refusal

    def _line(self, state: int, line: bytes) -> Refusal | None:
        """A complete head (``_R_HEAD``), chunk-size line or trailer line (both still ending in CR)."""
        if state == _R_HEAD:
            framing = None if not self.parser_is_strict else declared_length(line, len(line))
            if framing is None:
                framing = request_framing(line)
            if isinstance(framing, tuple):
                return framing
            self._total = 0
            if framing < 0:
                self._state = _R_SIZE
            elif framing:
                self._state, self._left = _R_BODY, framing
            return None
        if not line.endswith(b"\r") or b"\r" in line[:-1]:
            return 400, "Bad Request: a bare CR or LF in a chunked body"
        line = line[:-1]
        if state == _R_TRAILER:
            self._total += len(line) + 2
            if not line:
                self._state, self._began = _R_HEAD, False
            elif line[0] in (32, 9) or self._total > MAX_HEAD:
                return 400, "Bad Request: malformed or oversized trailer section"
            return None
        digits = line.split(b";", 1)[0].rstrip(b" \t")
        if not _HEXDIGITS.fullmatch(digits):
            return 400, "Bad Request: malformed chunk size"
        digits = digits.lstrip(b"0") or b"0"
        size = int(digits[:17], 16)  # (more digits can only be larger)
        if size + self._total > self.max_body:  # refused on its declaration: nothing of it is waited for
            return 413, f"Request body exceeds {self.max_body} bytes"
        self._total += size
        if size:
            self._state, self._left = _R_DATA, size
        else:
            self._state, self._total = _R_TRAILER, 0
        return None

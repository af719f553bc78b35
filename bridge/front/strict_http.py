"""Strict HTTP/1.1 framing on every HTTP front, whatever parser uvicorn runs (h11, or httptools with the MCP
endpoint's shortcut): a mixin for the protocol class ``h11_guard.header_timeout_protocol`` builds.

Each connection's bytes pass ``translate.http1.RequestFraming`` before the parser reads them. A request framed
ambiguously (Content-Length with Transfer-Encoding, obsolete line folding, a repeated Content-Length, a coding other
than a final chunked) or a chunk declared past the body cap is answered 400/413/501 with a JSON-RPC error without id
and ``Connection: close``; none of its bytes reach the parser, so nothing after it is read as another request
(RFC 9112 §6.1, §6.3; §11.2 request smuggling).

A connection closed while its client may still be sending (the refused request, a body the application refused
with 413 before reading it) is closed gracefully (``LingeringTransport``): the answer is sent and the sending side
shut (FIN), what the client still sends is read and dropped for a short while, then the socket closes. Closing
with unread bytes at once would answer them with a TCP reset, which can destroy the answer before the client
reads it (RFC 9112 §9.6).
"""

from __future__ import annotations

import asyncio
import logging
from http import HTTPStatus
from typing import Any

from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.http1 import Refusal, RequestFraming
from mcp_eras.bridge.translate.jsonrpc import INVALID_REQUEST

log = logging.getLogger("mcp_bridge.http")

LINGER_SECONDS = 2.0
"""Longest a closing connection keeps reading (and dropping) what its client still sends."""
LINGER_BYTES = (1024 * 1024, 64 * 1024 * 1024)
"""Most bytes dropped while lingering: the body cap, within these bounds (past it the socket closes at once)."""
DEFAULT_MAX_BODY = 1024 * 1024 * 1024
"""The cap declared chunks are held to when the app names none (a fleet: each server's own cap applies as the body is
read); the single-server app names its ``--max-body-bytes`` (``app.state.max_body_bytes``)."""


class LingeringTransport:
    """The connection's transport as uvicorn's protocol and request cycles see it: writes and reads go straight to the
    real one (bound methods, no extra call); ``close`` lingers when ``protocol.must_linger()`` says the client may
    still be sending, and ``is_closing`` is true from then on."""

    __slots__ = ("transport", "protocol", "lingering", "write", "get_extra_info", "pause_reading", "resume_reading",
                 "_timer", "_dropped", "_max_dropped")

    def __init__(self, transport: asyncio.Transport, protocol: Any, max_dropped: int) -> None:
        self.transport = transport
        self.protocol = protocol
        self.lingering = False
        self.write = transport.write
        self.get_extra_info = transport.get_extra_info
        self.pause_reading = transport.pause_reading
        self.resume_reading = transport.resume_reading
        self._timer: asyncio.TimerHandle | None = None
        self._dropped = 0
        self._max_dropped = max_dropped

    def is_closing(self) -> bool:
        return self.lingering or self.transport.is_closing()

    def close(self) -> None:
        transport = self.transport
        if self.lingering or transport.is_closing():
            return
        protocol = self.protocol
        if protocol is None or not protocol.must_linger():
            transport.close()
            return
        self.lingering = True
        if transport.can_write_eof():
            transport.write_eof()  # FIN once the answer is written; the client's EOF then closes the socket
        transport.resume_reading()
        self._timer = asyncio.get_running_loop().call_later(LINGER_SECONDS, transport.close)

    def close_now(self) -> None:
        self.transport.close()

    def dropped(self, size: int) -> None:
        """``size`` more bytes came while lingering (dropped): past the bound, the socket closes now."""
        self._dropped += size
        if self._dropped > self._max_dropped:
            self.transport.close()

    def stop(self) -> None:
        """The connection is lost: no timer left behind, and no hold on the protocol (which holds this transport: the
        pair, with the connection's parser and buffers, would wait for the cycle collector; a 2025 client that leaves
        each SSE answer unread closes a connection per call)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.protocol = None

    def __getattr__(self, name: str) -> Any:  # the rest of the transport API (rarely used), as it is
        return getattr(self.transport, name)


class StrictFraming:
    """Mixin before uvicorn's HTTP protocol class: the framing check, the refusal and the lingering close."""

    max_body_bytes = DEFAULT_MAX_BODY
    strict_parser = False
    """The parser refuses the ambiguous heads itself (httptools' llhttp): plain heads are then only measured."""
    _framing: RequestFraming
    _refusal: Refusal | None = None
    """A refusal waiting for an earlier pipelined request's answer to be written first."""
    transport: Any
    cycle: Any

    def connection_made(self, transport: asyncio.Transport) -> None:
        self._framing = RequestFraming(self.max_body_bytes, self.strict_parser)
        super().connection_made(LingeringTransport(transport, self, min(max(self.max_body_bytes, LINGER_BYTES[0]), LINGER_BYTES[1])))  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        transport = self.transport
        if type(transport) is LingeringTransport:
            transport.stop()
        super().connection_lost(exc)  # type: ignore[misc]

    def must_linger(self) -> bool:
        """Whether the client may still be sending: a request partly received, or one refused."""
        return self._refusal is not None or not self._framing.between_requests

    def data_received(self, data: bytes) -> None:
        transport = self.transport
        if transport.lingering or self._refusal is not None:
            transport.dropped(len(data))
            return
        refused = self._framing.feed(data)
        if refused is None:
            super().data_received(data)  # type: ignore[misc]
            return
        offset, begun, refusal = refused
        if offset:
            super().data_received(data[:offset])  # type: ignore[misc]  # the well-framed requests before it
        if not transport.is_closing():
            self._refuse(begun, refusal)

    def _refuse(self, begun: bool, refusal: Refusal) -> None:
        log.info("refused a request: %s (the connection closes)", refusal[1])
        self._refusal = refusal
        cycle = self.cycle
        pipeline = getattr(self, "pipeline", None)  # httptools' queue of parsed requests waiting for their turn
        waits = bool(pipeline)
        if begun and cycle is not None and cycle.more_body:
            # The refused request's head was parsed (``cycle``): it gets this answer and nothing else.
            if cycle.response_started:
                self.transport.close()  # it is being answered already: the connection just ends
                return
            cycle.disconnected = True
            cycle.message_event.set()
            if pipeline and any(queued is cycle for queued, _app in pipeline):
                pipeline.remove(next(item for item in pipeline if item[0] is cycle))
            else:
                waits = False  # it was being served: no earlier answer is pending
        elif cycle is not None and not cycle.response_complete:
            waits = True
        if waits:
            self.transport.pause_reading()
            return  # written once the earlier answers are (``refusal_due``)
        self._write_refusal()

    def refusal_due(self) -> None:
        """After a response: a waiting refusal is written once every earlier request is answered."""
        if self._refusal is None or getattr(self, "pipeline", None) or self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            if not cycle.more_body or cycle.response_started:
                return  # an earlier request is being answered
            # the refused request itself, its head parsed from the parser's buffer once the one before it was answered
            cycle.disconnected = True
            cycle.message_event.set()
        self._write_refusal()

    def _write_refusal(self) -> None:
        assert self._refusal is not None
        status, reason = self._refusal
        body = jsonrpc.dumps(jsonrpc.error_response(None, INVALID_REQUEST, reason))
        head = [b"HTTP/1.1 %d %s\r\n" % (status, HTTPStatus(status).phrase.encode())]
        head += (b"%s: %s\r\n" % field for field in self.server_state.default_headers)  # type: ignore[attr-defined]
        head.append(b"content-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(body))
        self.transport.write(b"".join(head) + body)
        self.transport.close()

"""A deadline for request headers (slowloris): uvicorn's HTTP/1.1 protocol (h11, or httptools when
``mcp-eras[fast]`` installed it: see ``mcp_eras.bridge._perf``) with one timer added.

uvicorn closes idle keep-alive connections, but any byte that arrives resets that idle timer, so a
client trickling a request's headers one byte at a time holds a connection (and a file descriptor)
forever. This protocol arms a timer when the connection opens and again after each response; if no
complete request head has been parsed when it fires, the connection is closed. Requests already being
served (long SSE streams included) are never cut: the timer only looks at whether a new request began.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from mcp_eras.bridge import _perf

DEFAULT_HEADER_TIMEOUT = 10.0


def default_base() -> type[Any]:
    """httptools' protocol when installed (and not turned off), else h11's."""
    if _perf.has("httptools"):
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        return HttpToolsProtocol
    return H11Protocol


def header_timeout_protocol(seconds: float = DEFAULT_HEADER_TIMEOUT, base: type[Any] | None = None) -> type[Any]:
    """``uvicorn.Config(http=header_timeout_protocol(10))``: a protocol class with that header deadline.
    Both uvicorn protocols set ``cycle`` once a request head is parsed and call ``on_response_complete``."""
    parent: Any = base or default_base()

    class HeaderTimeoutH11(parent):  # type: ignore[misc, valid-type]
        _header_timer: asyncio.TimerHandle | None = None
        _armed_for: Any = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def on_header(self, name: bytes, value: bytes) -> None:
            # httptools' parser callback (h11 never calls it): llhttp keeps trailing whitespace, but a field
            # value excludes leading and trailing OWS (RFC 9112 §5.1), as h11 already strips it.
            super().on_header(name, value.strip(b" \t"))

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            self._armed_for = self.cycle
            self._header_timer = self.loop.call_later(seconds, self._expired)

        def _expired(self) -> None:
            self._header_timer = None
            if self.cycle is self._armed_for and not self.transport.is_closing():
                self.transport.close()  # no new request head within the deadline

    return HeaderTimeoutH11

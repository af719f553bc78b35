"""A deadline for request headers (slowloris): uvicorn's HTTP/1.1 protocol (h11, or httptools when
``mcp-eras[fast]`` installed it: see ``mcp_eras.bridge._perf``) with one timer added.

uvicorn closes idle keep-alive connections, but any byte that arrives resets that idle timer, so a
client trickling a request's headers one byte at a time holds a connection (and a file descriptor)
forever. This protocol arms a timer when the connection opens and again after each response; if no
complete request head has been parsed when it fires, the connection is closed. Requests already being
served (long SSE streams included) are never cut: the timer only looks at whether a new request began.

The same protocol strips field values once per request head (httptools keeps trailing OWS) and tells an
endpoint when its connection is lost (``disconnect_watcher``) without a task blocked in ``receive()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from uvicorn.protocols.http.h11_impl import H11Protocol

from mcp_eras.bridge import _perf
from mcp_eras.bridge.front.strict_http import DEFAULT_MAX_BODY, StrictFraming

DEFAULT_HEADER_TIMEOUT = 10.0

DEADLINE_NEEDS = ("cycle", "loop", "transport", "connection_made", "connection_lost", "on_response_complete")
"""What the header deadline and ``watch_disconnect`` use of uvicorn's protocols (h11's and httptools'): checked by
``header_timeout_protocol``, which refuses to build a protocol without them (the deadline has no fallback)."""


class Shortcut(Protocol):
    """An endpoint's shortcut as ``header_timeout_protocol`` drives it on httptools' protocol (``fast_post.FastPost``):
    ``accepts`` a request head (its header index, or None for uvicorn's own request cycle), makes the request's
    ``cycle_type`` object that collects its body, and ``serve``s it once the body is complete."""

    cycle_type: type[Any]

    def unsupported(self, parent: type[Any]) -> tuple[str, str] | None:
        """(distribution, reason) when the shortcut cannot run on uvicorn's protocol ``parent`` here; None if it can."""
        ...

    def accepts(self, method: bytes, url: bytes, headers: list[tuple[bytes, bytes]]) -> dict[str, str] | None: ...

    def serve(self, cycle: Any, index: dict[str, str], watch: Any) -> Awaitable[None]: ...


def default_base() -> type[Any]:
    """httptools' protocol when installed (and not turned off), else h11's."""
    if _perf.has("httptools"):
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        return HttpToolsProtocol
    return H11Protocol


def header_timeout_protocol(seconds: float = DEFAULT_HEADER_TIMEOUT, base: type[Any] | None = None,
                            fast: Shortcut | None = None, max_body_bytes: int | None = None) -> type[Any]:
    """``uvicorn.Config(http=header_timeout_protocol(10))``: a protocol class with that header deadline.
    Both uvicorn protocols set ``cycle`` once a request head is parsed and call ``on_response_complete``.
    ``fast``: the MCP endpoint's shortcut (``mcp_eras.bridge.front.fast_post``), used on httptools' protocol when
    ``fast.unsupported`` finds nothing against it there (else one warning, and uvicorn serves every request).
    Every request's framing is checked before the parser reads it (``strict_http``); ``max_body_bytes``: the cap a
    chunked body's declared chunks are held to (the front's ``--max-body-bytes``)."""
    parent: Any = base or default_base()
    lacking = _perf.missing(parent, DEADLINE_NEEDS, set_by=("__init__", "connection_made"))
    if lacking:
        raise RuntimeError(f"uvicorn {_perf.version('uvicorn')} lacks {', '.join(lacking)}: the request header deadline "
                           "cannot be armed (install the uvicorn version pinned by mcp-eras)")
    shortcut = fast if hasattr(parent, "on_header") else None  # httptools' protocol only (h11 has no such callback)
    if shortcut is not None and (why := shortcut.unsupported(parent)) is not None:
        _perf.fall_back("the MCP endpoint's HTTP shortcut", *why)
        shortcut = None
    if shortcut is not None:
        FastCycle = shortcut.cycle_type

    body_cap = max_body_bytes or DEFAULT_MAX_BODY

    class HeaderTimeoutH11(StrictFraming, parent):  # type: ignore[misc, valid-type]
        max_body_bytes = body_cap
        strict_parser = hasattr(parent, "on_header")  # httptools: llhttp, strict (uvicorn sets no leniency)
        _header_timer: asyncio.TimerHandle | None = None
        _armed_for: Any = None
        _armed_at = 0.0

        if shortcut is not None:
            # httptools' parser callbacks, with the shortcut's request (``fast_post.FastCycle``) decided at the end of
            # the head: it gets no ASGI scope, request cycle or event; any other request gets uvicorn's own.
            def on_message_begin(self) -> None:
                self.url = b""
                self.headers = []
                self.expect_100_continue = False

            def on_header(self, name: bytes, value: bytes) -> None:
                # llhttp keeps trailing whitespace, but a field value excludes leading and trailing OWS (RFC 9112
                # §5.1), as h11 already strips it. Expect is looked at once the head is complete (the shortcut
                # refuses it; uvicorn's request gets its 100-continue there).
                self.headers.append((name.lower(), value.strip(b" \t")))

            def on_headers_complete(self) -> None:
                parser = self.parser
                ahead = self.cycle
                index = None
                if (ahead is None or ahead.response_complete) and self.limit_concurrency is None:
                    method = parser.get_method()
                    index = shortcut.accepts(method, self.url, self.headers)
                if index is not None:
                    keep_alive = parser.get_http_version() != "1.0" and parser.should_keep_alive()
                    self.cycle = FastCycle(self, method, index, keep_alive)
                    return
                # uvicorn's request: its scope as its on_message_begin makes it, around the head parsed so far
                url, headers = self.url, self.headers
                parent.on_message_begin(self)
                self.url = url
                self.expect_100_continue = any(n == b"expect" and v.lower() == b"100-continue" for n, v in headers)
                self.headers.extend(headers)
                super().on_headers_complete()

            def on_body(self, body: bytes) -> None:
                cycle = self.cycle
                if type(cycle) is FastCycle:
                    cycle.body += body  # at most the declared length the shortcut accepted
                    return
                super().on_body(body)

            def on_message_complete(self) -> None:
                cycle = self.cycle
                if type(cycle) is not FastCycle:
                    super().on_message_complete()
                    return
                if cycle.response_complete:
                    return
                cycle.more_body = False
                # Tracked as uvicorn tracks a request's task (shutdown waits for it); the task takes itself out when
                # it ends (``FastCycle.finish``): no done callback, so no loop turn after the answer.
                cycle.task = self.loop.create_task(shortcut.serve(cycle, cycle.index, self.watch_disconnect))
                self.tasks.add(cycle.task)

        elif hasattr(parent, "on_header"):
            def on_header(self, name: bytes, value: bytes) -> None:
                # httptools' protocol without the shortcut: field values stripped of OWS as above
                super().on_header(name, value.strip(b" \t"))

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        if shortcut is not None:
            def on_response_complete(self) -> None:
                # uvicorn's (httptools) without its keep-alive timer armed and cancelled around every request: the
                # header deadline armed here closes an idle connection first (``clikit.server_config`` sets uvicorn's
                # keep-alive above it).
                self.server_state.total_requests += 1
                if self.transport.is_closing():
                    return
                self.flow.resume_reading()
                if self.pipeline:
                    cycle, app = self.pipeline.pop()
                    self._start_asgi_task(cycle, app)
                self._arm()
                self.refusal_due()
        else:
            def on_response_complete(self) -> None:
                super().on_response_complete()
                self._arm()
                self.refusal_due()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            super().connection_lost(exc)
            # uvicorn cancels its keep-alive timer only when the connection ended without an error: after a reset
            # (a client that left an SSE stream with bytes unread) it held the closed connection's protocol, parser
            # and buffers for ``timeout_keep_alive`` seconds.
            keep_alive = getattr(self, "timeout_keep_alive_task", None)
            if keep_alive is not None:
                keep_alive.cancel()
                self.timeout_keep_alive_task = None
            lost, self._on_lost = self._on_lost, None
            for callback in lost or ():
                callback()

        _on_lost: list[Callable[[], None]] | None = None

        def watch_disconnect(self, callback: Callable[[], None]) -> Callable[[], None]:
            """Call ``callback`` once when the connection is lost (now, if it already is); returns the
            function that stops watching. See ``disconnect_watcher``."""
            if self.transport is None or self.transport.is_closing():
                callback()
                return _nothing
            if self._on_lost is None:
                self._on_lost = []
            watchers = self._on_lost
            watchers.append(callback)

            def unwatch() -> None:
                try:
                    watchers.remove(callback)
                except ValueError:
                    pass  # already called (the connection was lost)

            return unwatch

        def _arm(self) -> None:
            # One timer per connection, re-armed lazily: a keep-alive connection answering many requests
            # does not create and cancel a timer for each (the deadline is checked when the timer fires).
            self._armed_for = self.cycle
            self._armed_at = self.loop.time()
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(seconds, self._expired)

        def _expired(self) -> None:
            self._header_timer = None
            cycle = self.cycle
            if cycle is not self._armed_for or self.transport.is_closing() or (cycle is not None and not cycle.response_complete):
                return  # a request head came in time, or a pipelined one is being served (its response arms again)
            left = self._armed_at + seconds - self.loop.time()
            if left > 0:
                self._header_timer = self.loop.call_later(left, self._expired)  # armed again since this timer was set
                return
            self.transport.close_now()  # no new request head within the deadline (nothing to linger for)

    return HeaderTimeoutH11


def _nothing() -> None:
    return None


def disconnect_watcher(receive: Callable[..., Any]) -> Callable[[Callable[[], None]], Callable[[], None]] | None:
    """The protocol's ``watch_disconnect`` for the request whose ASGI ``receive`` this is, when the request
    is served by a protocol of ``header_timeout_protocol`` (uvicorn's request cycle reports back to its
    protocol through ``on_response``), else None (another server, a test client: then wait on
    ``receive()`` for ``http.disconnect`` as ASGI says). A callback costs nothing per request; a task
    blocked in ``receive()`` costs a task, its wake-ups and its cancellation on every call."""
    cycle = getattr(receive, "__self__", None)
    protocol = getattr(getattr(cycle, "on_response", None), "__self__", None)
    watch = getattr(protocol, "watch_disconnect", None)
    if watch is None:
        return None
    if getattr(cycle, "disconnected", False):
        def already(callback: Callable[[], None]) -> Callable[[], None]:
            callback()
            return _nothing
        return already
    return watch  # type: ignore[no-any-return]

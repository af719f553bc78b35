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
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from mcp_eras.bridge import _perf

if TYPE_CHECKING:
    from mcp_eras.bridge.front.fast_post import FastPost

DEFAULT_HEADER_TIMEOUT = 10.0


def default_base() -> type[Any]:
    """httptools' protocol when installed (and not turned off), else h11's."""
    if _perf.has("httptools"):
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        return HttpToolsProtocol
    return H11Protocol


def header_timeout_protocol(seconds: float = DEFAULT_HEADER_TIMEOUT, base: type[Any] | None = None,
                            fast: FastPost | None = None) -> type[Any]:
    """``uvicorn.Config(http=header_timeout_protocol(10))``: a protocol class with that header deadline.
    Both uvicorn protocols set ``cycle`` once a request head is parsed and call ``on_response_complete``.
    ``fast``: the MCP endpoint's shortcut (``mcp_eras.bridge.front.fast_post``), used on httptools' protocol."""
    parent: Any = base or default_base()
    shortcut = fast if hasattr(parent, "_start_asgi_task") else None  # httptools' protocol only

    class HeaderTimeoutH11(parent):  # type: ignore[misc, valid-type]
        _header_timer: asyncio.TimerHandle | None = None
        _armed_for: Any = None
        _armed_at = 0.0
        _fast_index: dict[str, str] | None = None
        _fast_cycle: Any = None

        if shortcut is not None:
            def _start_asgi_task(self, cycle: Any, app: Any) -> None:
                if self._fast_index is not None and cycle is self.cycle and app is self.app:
                    self._fast_cycle = cycle  # served once its body is in
                    return
                super()._start_asgi_task(cycle, app)

            def on_body(self, body: bytes) -> None:
                super().on_body(body)
                if self._fast_cycle is not None:
                    self.flow.resume_reading()  # no receive() drains it: the body is bounded by its declared length

            def on_message_complete(self) -> None:
                super().on_message_complete()
                cycle, index = self._fast_cycle, self._fast_index
                if cycle is None or cycle is not self.cycle or index is None:
                    return
                self._fast_cycle = self._fast_index = None
                task = self.loop.create_task(shortcut.serve(cycle, index, self.watch_disconnect))
                task.add_done_callback(self.tasks.discard)
                self.tasks.add(task)

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def on_headers_complete(self) -> None:
            # httptools' parser callback (h11 never calls it): llhttp keeps trailing whitespace, but a field
            # value excludes leading and trailing OWS (RFC 9112 §5.1), as h11 already strips it. One pass
            # over the request's header list (the scope holds the same list) before uvicorn reads it.
            headers = self.headers
            stripped = [(n, v.strip(b" \t")) for n, v in headers]
            if stripped != headers:  # rare: then uvicorn's own per-header check saw the unstripped value
                headers[:] = stripped
                self.expect_100_continue = any(n == b"expect" and v.lower() == b"100-continue" for n, v in stripped)
            if shortcut is not None:
                self._fast_cycle = None
                ahead = self.cycle
                self._fast_index = (shortcut.accepts(self.parser.get_method(), self.url, stripped)
                                    if ahead is None or ahead.response_complete else None)
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
            super().connection_lost(exc)
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
            if self.cycle is not self._armed_for or self.transport.is_closing():
                return  # a request head came in time (the response that ends it arms again)
            left = self._armed_at + seconds - self.loop.time()
            if left > 0:
                self._header_timer = self.loop.call_later(left, self._expired)  # armed again since this timer was set
                return
            self.transport.close()  # no new request head within the deadline

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

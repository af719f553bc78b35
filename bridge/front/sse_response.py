"""An SSE response that needs no task per stream under the bridge's own HTTP protocol.

Starlette's ``StreamingResponse`` (ASGI spec below 2.4, as uvicorn declares) runs every stream in a task
group with a second task waiting in ``receive()`` for the client to go away, and tears both down per
response (measured: ~15% of a relayed 2025 call's CPU, which is always SSE for methods that may ask
the client). Under ``h11_guard``'s protocol the connection reports its loss by callback instead
(``h11_guard.disconnect_watcher``): the stream is sent from the request's own task, and a lost client
cancels just that send loop (``Task.uncancel`` tells it from any other cancellation, which still
propagates). Anywhere else (another server, a test client) it is Starlette's response unchanged.

The MCP endpoint's shortcut (``fast_post.write_stream``) sends the same chunks without ASGI messages; a body
that knows its last chunk says so (``final``) so that chunk and the stream's end go out together.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.background import BackgroundTask
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from mcp_eras.bridge import _perf
from mcp_eras.bridge.front.h11_guard import disconnect_watcher
from mcp_eras.bridge.sse import SSE_HEADERS

Watch = Callable[[Callable[[], None]], Callable[[], None]]

STARLETTE_TESTED = ((1, 10), (1, 11))
"""The Starlette versions this response was tested on (pyproject.toml pins the same range)."""

_OWN_FIELDS = frozenset({"body_iterator", "status_code", "media_type", "background", "raw_headers"})
"""What ``SSEResponse.__init__`` sets itself on the usual SSE answer, in place of ``StreamingResponse.__init__``."""


def check() -> bool:
    """Whether Starlette's ``StreamingResponse`` is as this response expects it (its ``__init__`` sets nothing but
    ``_OWN_FIELDS``; ``stream_response(send)`` sends the stream); else one warning, and Starlette's response serves
    every stream unchanged."""
    global WATCHED
    why = _perf.untested("starlette", *STARLETTE_TESTED)
    if why is None:
        extra = _perf.assigned(StreamingResponse.__init__, Response.init_headers) - _OWN_FIELDS
        lacking = _perf.missing(StreamingResponse, ("stream_response",))
        if extra or lacking:
            why = f"it lacks {', '.join(lacking)}" if lacking else f"StreamingResponse sets {', '.join(sorted(extra))}"
    if why is not None:
        _perf.fall_back("SSE streams without a watcher task", "starlette", why)
    WATCHED = why is None
    return WATCHED


WATCHED = True
"""Starlette's response is as expected (``check``): the usual SSE answer is made and sent by this class."""

_SSE_RAW_HEADERS = StreamingResponse(iter(()), media_type="text/event-stream", headers=SSE_HEADERS).raw_headers
"""What Starlette makes of the usual SSE head, built once (the same list, copied per response)."""


class SSEResponse(StreamingResponse):
    final = False
    """Set by a body that knows it: the chunk it yields now is its last (read by ``fast_post.write_stream``)."""

    def __init__(self, content: Any, status_code: int = 200, headers: Mapping[str, str] | None = None,
                 media_type: str | None = None, background: BackgroundTask | None = None) -> None:
        if status_code == 200 and media_type == "text/event-stream" and background is None and headers == SSE_HEADERS \
                and WATCHED:
            self.body_iterator = content
            self.status_code = status_code
            self.media_type = media_type
            self.background = None
            self.raw_headers = list(_SSE_RAW_HEADERS)
            return
        super().__init__(content, status_code, headers, media_type, background)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        watch = disconnect_watcher(receive) if scope["type"] == "http" and self.background is None else None
        if watch is None or not WATCHED or asyncio.current_task() is None:
            await super().__call__(scope, receive, send)
            return
        await self.watched(watch, self.stream_response(send))

    async def watched(self, watch: Watch, sending: Awaitable[None]) -> None:
        """Run ``sending`` (this response's send loop) in the current task, ended early if the client goes away."""
        task = asyncio.current_task()
        assert task is not None
        lost = False

        def on_lost() -> None:
            nonlocal lost
            if not lost:
                lost = True
                task.cancel()

        unwatch = watch(on_lost)
        try:
            await sending
        except asyncio.CancelledError:
            if not lost or task.uncancel() > 0:
                raise  # not (only) the client going away: shutdown, a caller's deadline
            # the client went away: the stream ends here, as Starlette's own disconnect listener ends it
        finally:
            unwatch()
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                await aclose()  # the body's own clean-up runs now, not when it is collected


check()

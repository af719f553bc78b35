"""An SSE response that needs no task per stream under the bridge's own HTTP protocol.

Starlette's ``StreamingResponse`` (ASGI spec below 2.4, as uvicorn declares) runs every stream in a task
group with a second task waiting in ``receive()`` for the client to go away, and tears both down per
response (measured: ~15% of a relayed 2025 call's CPU, which is always SSE for methods that may ask
the client). Under ``h11_guard``'s protocol the connection reports its loss by callback instead
(``h11_guard.disconnect_watcher``): the stream is sent from the request's own task, and a lost client
cancels just that send loop (``Task.uncancel`` tells it from any other cancellation, which still
propagates). Anywhere else (another server, a test client) it is Starlette's response unchanged.
"""

from __future__ import annotations

import asyncio

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from mcp_eras.bridge.front.h11_guard import disconnect_watcher


class SSEResponse(StreamingResponse):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        watch = disconnect_watcher(receive) if scope["type"] == "http" and self.background is None else None
        task = asyncio.current_task()
        if watch is None or task is None:
            await super().__call__(scope, receive, send)
            return
        lost = False

        def on_lost() -> None:
            nonlocal lost
            if not lost:
                lost = True
                task.cancel()

        unwatch = watch(on_lost)
        try:
            await self.stream_response(send)
        except asyncio.CancelledError:
            if not lost or task.uncancel() > 0:
                raise  # not (only) the client going away: shutdown, a caller's deadline
            # the client went away: the stream ends here, as Starlette's own disconnect listener ends it
        finally:
            unwatch()
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                await aclose()  # the body's own clean-up runs now, not when it is collected

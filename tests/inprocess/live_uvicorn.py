"""A real uvicorn serving an app on a loopback port inside the test's event loop (for tests of the
HTTP protocol layer: what the ASGI test clients cannot show)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import uvicorn


@contextlib.asynccontextmanager
async def serving(app: Any, protocol: Any) -> AsyncIterator[int]:
    """Serve ``app`` with the HTTP ``protocol`` class (or factory); yields the port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", http=protocol, timeout_graceful_shutdown=5))
    task = asyncio.create_task(srv.serve(sockets=[sock]))
    while not srv.started:  # noqa: ASYNC110 - uvicorn exposes a flag, not an event
        await asyncio.sleep(0.01)
    try:
        yield sock.getsockname()[1]
    finally:
        srv.should_exit = True
        await task
        sock.close()

"""Reading a whole request body with a cap, for the endpoints that are not MCP's own (the instances' internal
forward and relay, the fleet's admin forms): a body over the cap is never held, and a client that hangs up mid-body
is an answer, not a traceback."""

from __future__ import annotations

import logging
from http import HTTPStatus

from starlette.requests import ClientDisconnect, Request

from mcp_eras.bridge.translate.fronts import declared_over

log = logging.getLogger("mcp_bridge.front")


async def bounded_body(request: Request, limit: int) -> bytes | HTTPStatus:
    """The body, or the status to answer: 413 when it is (or is declared) over ``limit`` bytes, 400 when the client
    went away before its end."""
    if declared_over(request.headers.get("content-length"), limit):
        return HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                return HTTPStatus.REQUEST_ENTITY_TOO_LARGE
            chunks.append(chunk)
    except ClientDisconnect:
        log.debug("the client went away before the end of its request body (%s)", request.url.path)
        return HTTPStatus.BAD_REQUEST
    return b"".join(chunks)

"""Same-era passthrough for 2025 clients of 2025 Streamable HTTP servers: the client's requests,
session id and streams are forwarded to the upstream URL as they are, with nothing translated.

(2026 clients of 2026 servers are already untranslated: the modern upstream relays canonical frames.
2025 clients of stdio or HTTP+SSE servers, and of 2026 servers, go through the translating fronts.)

Forwarded request headers: content type, accept, session id, protocol version, Last-Event-ID,
Authorization and W3C trace context; the server's configured headers are added (the client's
Authorization, when given, wins, as in the translating path). Each POST is counted in the server's
metrics and in-flight accounting (a reload drains it); GET streams are not in-flight calls.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator
from http import HTTPStatus
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.http import origin_allowed, read_body, rpc_error
from mcp_eras.bridge.layers.managed import ManagedUpstream
from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, INVALID_REQUEST, FrameError

REQUEST_HEADERS = ("content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id", "authorization",
                   *eras.TRACE_META_KEYS)
RESPONSE_HEADERS = ("content-type", "mcp-session-id", "mcp-protocol-version", "cache-control", "www-authenticate")


def classify_post(body: bytes) -> tuple[Any, str]:
    """Pure: (parsed message or None, metrics method label) of a POST body."""
    try:
        msg = json.loads(body)
    except ValueError:
        return None, "invalid"
    if isinstance(msg, list):
        return msg, "batch"
    if not isinstance(msg, dict):
        return None, "invalid"
    if isinstance(msg.get("method"), str):
        return msg, msg["method"]
    return msg, "response"


def outcome_of_body(status: int, content_type: str, body: bytes | None) -> str:
    """Pure: metrics outcome of a forwarded answer (SSE bodies are not parsed: ``streamed``)."""
    if status >= HTTPStatus.BAD_REQUEST:
        return f"http_{status}"
    if body is None:
        return "streamed" if content_type.startswith("text/event-stream") else "ok"
    with contextlib.suppress(ValueError):
        msg = json.loads(body) if body else None
        if isinstance(msg, dict) and "error" in msg:
            return "error"
    return "ok"


class SseOutcome:
    """Pure, incremental: watches a forwarded SSE body for the JSON-RPC response (ok or error)."""

    LIMIT = 1 << 20

    def __init__(self) -> None:
        self.buffer = b""
        self.seen = 0
        self.outcome: str | None = None

    def feed(self, chunk: bytes) -> None:
        if self.outcome is not None or self.seen > self.LIMIT:
            return
        self.seen += len(chunk)
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            if not line.startswith(b"data:"):
                continue
            with contextlib.suppress(ValueError):
                msg = json.loads(line[5:])
                if isinstance(msg, dict) and "id" in msg and ("result" in msg or "error" in msg):
                    self.outcome = "error" if "error" in msg else "ok"
                    return


class Passthrough:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client

    async def forward(self, request: Request, body: bytes | None, url: str, upstream: ManagedUpstream, settings: Settings,
                      static_headers: dict[str, str]) -> Response:
        if not origin_allowed(request.headers.get("origin"), settings):
            return rpc_error(HTTPStatus.FORBIDDEN, INVALID_REQUEST, "Forbidden: Origin not allowed")
        headers = dict(static_headers)
        headers.update({k: request.headers[k] for k in REQUEST_HEADERS if k in request.headers})
        method = request.method
        label = method
        if method == "POST" and body is not None:
            _, label = classify_post(body)
        long_lived = method == "GET"
        timeout = httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout,
                                read=None if long_lived else settings.request_timeout)
        slot = upstream.enter() if method == "POST" else None
        started = time.monotonic()
        trace = {k: request.headers[k] for k in eras.TRACE_META_KEYS if k in request.headers}
        try:
            resp = await self.client.send(self.client.build_request(method, url, headers=headers, content=body, timeout=timeout),
                                          stream=True)
        except httpx.HTTPError as exc:
            if slot is not None:
                upstream.leave(slot)
                upstream.record(label, eras.LEGACY, eras.LEGACY, "unavailable", time.monotonic() - started, trace)
            upstream.last_error = f"{exc.__class__.__name__}: {exc}"
            return rpc_error(HTTPStatus.BAD_GATEWAY, INTERNAL_ERROR, f"Upstream {upstream.name} unreachable: {exc.__class__.__name__}")
        out_headers = {k: resp.headers[k] for k in RESPONSE_HEADERS if k in resp.headers}
        ctype = resp.headers.get("content-type", "")
        if not ctype.startswith("text/event-stream"):
            try:
                data = await resp.aread()
            finally:
                await resp.aclose()
                if slot is not None:
                    upstream.leave(slot)
            if slot is not None:
                upstream.record(label, eras.LEGACY, eras.LEGACY, outcome_of_body(resp.status_code, ctype, data),
                                time.monotonic() - started, trace)
            return Response(data, status_code=resp.status_code, headers=out_headers)

        async def stream() -> AsyncIterator[bytes]:
            scan = SseOutcome() if slot is not None else None
            try:
                async for chunk in resp.aiter_raw():
                    if scan is not None:
                        scan.feed(chunk)
                    yield chunk
            finally:
                await resp.aclose()
                if slot is not None:
                    upstream.leave(slot)
                    outcome = scan.outcome if scan is not None and scan.outcome else outcome_of_body(resp.status_code, ctype, None)
                    upstream.record(label, eras.LEGACY, eras.LEGACY, outcome, time.monotonic() - started, trace)

        return StreamingResponse(stream(), status_code=resp.status_code, headers=out_headers)


async def read_post(request: Request, settings: Settings) -> bytes | Response:
    try:
        return await read_body(request, settings.max_body_bytes)
    except FrameError as exc:
        return rpc_error(exc.http_status, exc.code, exc.message)

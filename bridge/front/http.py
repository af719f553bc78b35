"""Streamable HTTP front: one ``/mcp`` endpoint serving 2026-07-28 clients (and, through the legacy
front, 2025 sessions), plus ``/healthz``.

Moves bytes and applies transport rules (Origin, body caps, content type, header/body agreement,
JSON vs SSE, disconnect = cancel). Protocol meaning comes from ``mcp_eras.bridge.translate`` and the upstream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Protocol

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcp_eras.bridge import _perf
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, find
from mcp_eras.bridge.front import middleware as guard
from mcp_eras.bridge.front import server_card
from mcp_eras.bridge.front.fast_post import FastPost
from mcp_eras.bridge.front.h11_guard import disconnect_watcher
from mcp_eras.bridge.front.json_body import JSONBody
from mcp_eras.bridge.front.sse_response import SSEResponse
from mcp_eras.bridge.gateway.identity import CALLER
from mcp_eras.bridge.layers.policy import GatewayUpstream
from mcp_eras.bridge.translate import eras, errors, jsonrpc, modern_front
from mcp_eras.bridge.translate.fronts import (
    Accepted,
    Refuse,
    body_too_large,
    declared_over,
    is_legacy_post,
    learn_param_headers,
    legacy_only_refusal,
    method_refusal,
    modern_post,
)
from mcp_eras.bridge.translate.gateway import policy as gp
from mcp_eras.bridge.translate.gateway import resource as rs
from mcp_eras.bridge.translate.gateway.ratelimit import retry_after_header
from mcp_eras.bridge.translate.jsonrpc import FrameError, Message
from mcp_eras.bridge.translate.legacy_server.listen import LISTEN, listen_completion
from mcp_eras.bridge.translate.sse import KEEPALIVE, SSE_HEADERS, sse_event

log = logging.getLogger("mcp_bridge.http")

Watch = Callable[[Callable[[], object]], Callable[[], object]]
"""``watch(callback)``: call ``callback`` when the client goes away; returns the function that stops watching."""


class LegacyFrontProtocol(Protocol):
    async def handle_post(self, request: Request, msg: Message) -> Response: ...
    async def handle_get(self, request: Request) -> Response: ...
    async def handle_delete(self, request: Request) -> Response: ...
    async def aclose(self) -> None: ...


def origin_allowed(origin: str | None, settings: Settings) -> bool:
    """DNS-rebinding defence (see ``mcp_eras.bridge.front.middleware``), for callers holding Settings."""
    return guard.origin_allowed(origin, settings.allowed_origins)


def rpc_error(status: int, code: int, message: str, id: Any = None, data: Any = None, headers: dict[str, str] | None = None) -> Response:
    return Response(jsonrpc.dumps(jsonrpc.error_response(id, code, message, data)), status_code=status,
                    media_type="application/json", headers=headers)


def refused_response(refusal: Refuse) -> Response:
    return rpc_error(refusal.status, refusal.code, refusal.message, refusal.id, refusal.data,
                     dict(refusal.headers) if refusal.headers is not None else None)


def json_message(msg: Message, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    if headers is None:
        return JSONBody(jsonrpc.dumps(msg), status)
    return Response(jsonrpc.dumps(msg), status_code=status, media_type="application/json", headers=headers)


def _failed(msg: Message, exc: Exception) -> Message:
    """A bug in the bridge as the caller's -32603 (never a hang), logged with its traceback."""
    log.error("upstream call failed", exc_info=exc)
    return jsonrpc.bridge_failure(msg["id"], exc)


MAX_UNASKED_NOTES = 1024
"""Notifications kept for a request that asked for none (``HttpFront._dispatch_here``); more are dropped and logged."""
async def _now(response: Response) -> Response:
    return response


async def _replay(messages: list[Message]) -> AsyncIterator[bytes]:
    for message in messages:
        yield sse_event(message)


def call_context(request: Request, client_era: eras.Era = eras.MODERN) -> CallContext:
    return headers_context(request.headers, client_era)


def headers_context(headers: Mapping[str, str], client_era: eras.Era = eras.MODERN) -> CallContext:
    caller = CALLER.get()
    if caller is not None:  # a resource-server front validated the token (mcp_eras.bridge.gateway.guard): never forwarded
        return CallContext(principal=caller.principal, trace={k: headers[k] for k in eras.TRACE_META_KEYS if k in headers},
                           client_era=client_era, subject=caller.subject, scopes=caller.scopes, subject_token=caller.token)
    auth = headers.get("authorization")
    if auth is None and client_era in _ANONYMOUS and _TRACE_FIELDS.isdisjoint(headers):
        return _ANONYMOUS[client_era]  # frozen, and nobody writes to its empty trace: one per era serves every such call
    trace = {k: headers[k] for k in eras.TRACE_META_KEYS if k in headers}
    return CallContext(principal=CallContext.principal_of(auth), authorization=auth, trace=trace, client_era=client_era)


_ANONYMOUS = {era: CallContext(client_era=era) for era in (eras.MODERN, eras.LEGACY)}
_TRACE_FIELDS = frozenset(eras.TRACE_META_KEYS)


async def read_body(request: Request, limit: int) -> bytes:
    if declared_over(request.headers.get("content-length"), limit):
        raise body_too_large(limit)
    if "_body" not in request.__dict__ and not request._stream_consumed:  # noqa: SLF001 - Starlette's own flags
        # The usual case: one ASGI message holds the whole body (no async generator per request).
        message = await request.receive()
        if message["type"] == "http.request" and not message.get("more_body", False):
            body: bytes = message.get("body", b"")
            if len(body) > limit:
                raise body_too_large(limit)
            request._stream_consumed = True  # noqa: SLF001
            return body
        return await _read_rest(request, message, limit)
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise body_too_large(limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise _gone_mid_body() from None
    return b"".join(chunks)


def _gone_mid_body() -> FrameError:
    """The client hung up (or its request was refused for its framing) before its body ended: one debug line, and an
    answer nobody reads (no traceback: nothing failed here)."""
    log.debug("the client went away before the end of its request body")
    return FrameError(jsonrpc.INVALID_REQUEST, "Bad Request: the request body ended early", http_status=400)


async def _read_rest(request: Request, message: Message, limit: int) -> bytes:
    """The body after its first ASGI message (``message``): the remaining ``http.request`` messages."""
    request._stream_consumed = True  # noqa: SLF001
    chunks: list[bytes] = []
    size = 0
    while True:
        if message["type"] == "http.disconnect":
            raise _gone_mid_body()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise body_too_large(limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
        message = await request.receive()


class HttpFront:
    def __init__(self, settings: Settings, upstream: Upstream, legacy: LegacyFrontProtocol | None = None) -> None:
        self.settings = settings
        self.upstream = upstream
        self.legacy = legacy
        self.param_headers: dict[str, dict[tuple[str, ...], str]] = {}
        """``x-mcp-header`` annotations (by tool name) learned from the ``tools/list`` results this
        front relays: ``Mcp-Param-*`` headers of later calls are checked against them."""
        self._listens: dict[int, Callable[[], None]] = {}
        """The open ``subscriptions/listen`` streams: each one's way to end with its completion (``drain``)."""
        self.draining = False
        self.gate = find(upstream, GatewayUpstream)
        """The server's gateway layer (tool policy and audit), for refusals decided before a call starts."""
        self.resource_metadata: str | None = (rs.metadata_url(settings.auth_audience)
                                              if settings.auth_issuer and settings.auth_audience else None)
        """Behind a resource server (``--auth-issuer``; a fleet's ``[auth]`` sets it per server): the URL of this
        endpoint's protected resource metadata, named by a 403's challenge."""

    def drain(self) -> None:
        """The bridge is stopping: every listen stream it serves ends with its completion result (2026-07-28 schema
        ``SubscriptionsListenResult``: the graceful end; a stream cut without it reads as an abrupt drop)."""
        self.draining = True
        for end in list(self._listens.values()):
            end()

    # --- entry ----------------------------------------------------------------------------------------

    async def endpoint(self, request: Request) -> Response:
        refused = guard.screen_request(request, self.settings)
        if refused is not None:
            return refused
        method = request.method
        if method != "POST":
            refusal = method_refusal(method, self.legacy_ok)
            if refusal is not None:
                return refused_response(refusal)
            assert self.legacy is not None
            return await (self.legacy.handle_get(request) if method == "GET" else self.legacy.handle_delete(request))
        try:
            body = await read_body(request, self.settings.max_body_bytes)
            msg = jsonrpc.parse_frame(body)
        except FrameError as exc:
            return self.error_response(exc)
        return await self.answer_post(request.headers, msg, lambda callback: _watch_disconnect(request, callback),
                                      lambda: request)

    def answer_post(self, headers: Mapping[str, str], msg: Message, watch: Watch,
                    request: Callable[[], Request]) -> Awaitable[Response]:
        """A POST whose body parsed as ``msg``: a 2025 session's (the 2025 front, given ``request()``) or a 2026 one.
        Returns the chosen front's coroutine itself (one coroutine less per request)."""
        if self.legacy_ok and self.is_legacy(headers, msg):
            assert self.legacy is not None
            # A front that reads only the header fields (LegacyHttpFront) takes them as they are: no Request built.
            by_headers = getattr(self.legacy, "handle_post_headers", None)
            return by_headers(headers, msg) if by_headers is not None else self.legacy.handle_post(request(), msg)
        if self.settings.front_era == eras.LEGACY:
            return _now(refused_response(legacy_only_refusal(msg)))
        return self.modern(headers, msg, watch)

    @property
    def legacy_ok(self) -> bool:
        """Whether 2025 sessions are served here too."""
        return self.legacy is not None and self.settings.front_era != eras.MODERN

    @staticmethod
    def error_response(exc: FrameError) -> Response:
        return rpc_error(exc.http_status, exc.code, exc.message, exc.id, exc.data)

    def is_legacy(self, headers: Mapping[str, str], msg: Message) -> bool:
        """Whether this POST belongs to a 2025 session (``fronts.is_legacy_post``)."""
        return is_legacy_post(self.settings.front_era, headers, msg)

    # --- 2026-07-28 -----------------------------------------------------------------------------------

    async def modern(self, headers: Mapping[str, str], msg: Message, watch: Watch) -> Response:
        """A 2026-07-28 POST whose body is ``msg``; ``watch`` reports the client going away (``_watch_disconnect``)."""
        meta = modern_post(msg, headers, self.param_headers)
        if isinstance(meta, Refuse):
            return refused_response(meta)
        if isinstance(meta, Accepted):
            return Response(status_code=202)
        ctx = headers_context(headers)
        if ctx.subject is not None and msg["method"] == "tools/call" and self.gate is not None:
            refused = self.step_up(msg, ctx, headers)
            if refused is not None:
                return refused
        return await self.dispatch(msg, ctx, watch, meta)

    def step_up(self, msg: Message, ctx: CallContext, headers: Mapping[str, str]) -> Response | None:
        """A 2026 client's ``tools/call`` that the server's policy refuses for a scope its validated token lacks: 403
        with ``WWW-Authenticate: Bearer error="insufficient_scope", scope=..., resource_metadata=...`` (RFC 6750
        section 3.1; 2026-07-28 basic/authorization "Step-Up Authorization Flow") and the named JSON-RPC error as
        the body, decided from the request before any response starts (so never a 200 stream). None: the call goes
        on (the gateway layer still refuses what its policy forbids, with the named error)."""
        if self.gate is None or self.resource_metadata is None or headers.get("mcp-protocol-version") != eras.MODERN:
            return None
        refused = self.gate.refuse_early(msg, ctx)
        if refused is None:
            return None
        found = gp.challenge(refused, self.resource_metadata)
        return json_message(refused, *found) if found is not None else json_message(refused)

    def dispatch(self, msg: Message, ctx: CallContext, watch: Watch, meta: dict[str, Any] | None = None) -> Awaitable[Response]:
        """Run one canonical request: JSON when the result comes first, SSE once a notification precedes it (a request
        that asked for no notifications: ``_dispatch_here``). ``meta``: its ``_meta``, when already looked up."""
        if modern_front.answers_once(msg, meta):
            return self._dispatch_here(msg, ctx, watch)
        return self._dispatch_streaming(msg, ctx, watch)

    async def _dispatch_streaming(self, msg: Message, ctx: CallContext, watch: Watch) -> Response:
        """``dispatch`` for a request that may be sent notifications.

        The first item (a notification or the response) settles ``first``; later ones queue for the SSE
        stream. A client disconnect before the first item settles it with None (then the call is cancelled).
        One task for the call; the connection is watched by a callback from the HTTP protocol
        (``h11_guard.disconnect_watcher``) or, under another server, by a task waiting on ``receive()``."""
        loop = asyncio.get_running_loop()
        first: asyncio.Future[tuple[str, Message] | None] = loop.create_future()
        later: list[asyncio.Queue[tuple[str, Message]]] = []  # made once a second item comes (an SSE answer)

        def put(item: tuple[str, Message]) -> None:
            if not first.done():
                first.set_result(item)
                return
            if not later:
                later.append(asyncio.Queue())
            later[0].put_nowait(item)

        async def emit(note: Message) -> None:
            put(("note", note))

        async def run() -> None:
            put(("done", await self._call(msg, ctx, emit)))

        if msg["method"] == LISTEN and self.draining:
            return json_message(listen_completion(msg["id"]))
        task = loop.create_task(run())
        if msg["method"] == LISTEN:
            def end_listen() -> None:
                if not task.done():
                    task.cancel()  # (the upstream listen is cancelled; nothing it sends after this is relayed)
                    put(("done", listen_completion(msg["id"])))

            self._listens[id(task)] = end_listen
            task.add_done_callback(lambda t: self._listens.pop(id(t), None))
        unwatch = watch(lambda: first.done() or first.set_result(None))
        try:
            head = await first
        except BaseException:
            task.cancel()  # the front itself is being cancelled (shutdown): so is the call
            raise
        finally:
            unwatch()
        if head is None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
            return Response(status_code=499)
        kind, payload = head
        if kind == "done":
            return json_message(payload, errors.modern_http_status(payload), retry_after_header(payload))
        if not later:
            later.append(asyncio.Queue())
        return SSEResponse(self._stream(payload, later[0], task), media_type="text/event-stream", headers=SSE_HEADERS)

    async def _call(self, msg: Message, ctx: CallContext, emit: Emit) -> Message:
        """The upstream's answer to ``msg`` (a bug in the bridge becomes -32603, never a hang)."""
        try:
            response = await self.upstream.call(msg, ctx, emit)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - never let a bug become a hang
            response = _failed(msg, exc)
        if msg["method"] == "tools/list":
            self._learn_param_schemas(response)
        return response

    async def _dispatch_here(self, msg: Message, ctx: CallContext, watch: Watch) -> Response:
        """``dispatch`` for a request that asked for no notifications (``modern_front.answers_once``): the call runs here
        (no second task, no hand-over back) and its answer is JSON. A client going away cancels this task's call and
        gets 499, as in ``dispatch``. Notifications an upstream sends anyway are kept (up to ``MAX_UNASKED_NOTES``)
        and come before the response on an SSE answer, as ``dispatch`` would have streamed them."""
        task = _perf.current_task(asyncio.get_running_loop())
        assert task is not None
        cancelling = task.cancelling()
        gone: list[bool] = []
        notes: list[Message] = []
        async def emit(note: Message) -> None:
            if len(notes) < MAX_UNASKED_NOTES:
                notes.append(note)
                if len(notes) == MAX_UNASKED_NOTES:
                    log.warning("upstream sent %d notifications the request did not ask for; dropping any more",
                                MAX_UNASKED_NOTES)

        def lost() -> None:
            if not gone:  # once, and only while the call runs
                gone.append(True)
                task.cancel()

        unwatch = watch(lost)
        try:  # (``_call``, inline: one coroutine less per request)
            response = await self.upstream.call(msg, ctx, emit)
        except asyncio.CancelledError:
            if gone and task.uncancel() <= cancelling:
                return Response(status_code=499)
            raise
        except Exception as exc:  # noqa: BLE001 - never let a bug become a hang
            response = _failed(msg, exc)
        finally:
            gone.append(False)  # the call is over: a late report of the client going away cancels nothing
            unwatch()
        if msg["method"] == "tools/list":
            self._learn_param_schemas(response)
        if not notes:
            return json_message(response, errors.modern_http_status(response), retry_after_header(response))
        return SSEResponse(_replay([*notes, response]), media_type="text/event-stream", headers=SSE_HEADERS)

    async def _stream(self, first: Message, queue: asyncio.Queue[tuple[str, Message]], task: asyncio.Task[None]) -> AsyncIterator[bytes]:
        try:
            yield sse_event(first)
            while True:
                try:
                    kind, payload = await asyncio.wait_for(queue.get(), self.settings.sse_keepalive)
                except TimeoutError:
                    yield KEEPALIVE
                    continue
                yield sse_event(payload)
                if kind == "done":
                    return
        finally:
            # The client closed the stream (or we finished): a closed stream is the cancel
            # (2026-07-28 basic/transports/streamable-http.mdx §Cancellation).
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    def _learn_param_schemas(self, response: Message) -> None:
        learn_param_headers(self.param_headers, response)

    async def healthz(self, request: Request) -> Response:
        status = self.upstream.status()
        return JSONResponse({"status": "ok", "upstream": status})


def _watch_disconnect(request: Request, callback: Callable[[], object]) -> Callable[[], object]:
    """Call ``callback`` when the client goes away; returns the function that stops watching."""
    watch = disconnect_watcher(request.receive)
    if watch is not None:
        return watch(callback)
    watcher = asyncio.get_running_loop().create_task(_wait_disconnect(request))
    watcher.add_done_callback(lambda w: w.cancelled() or callback())  # unwatched (cancelled): the client did not go
    return watcher.cancel


async def _wait_disconnect(request: Request) -> None:
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            return


def resource_guard(settings: Settings, path: str) -> Any:
    """The OAuth resource-server middleware for ``path`` (``mcp_eras.bridge.gateway.guard``), or None without --auth-issuer."""
    if not settings.auth_issuer:
        return None
    from mcp_eras.bridge.gateway.guard import single_middleware

    return single_middleware(settings, path)


def build_app(settings: Settings, upstream: Upstream, legacy: LegacyFrontProtocol | None = None,
              extra_routes: list[Route] | None = None, lifespan: Callable[[Starlette], Any] | None = None,
              path: str = "/mcp") -> Starlette:
    front = HttpFront(settings, upstream, legacy)

    @contextlib.asynccontextmanager
    async def default_lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            await upstream.start()
        except Exception as exc:  # noqa: BLE001 - the bridge still serves errors and retries later
            log.error("upstream did not start: %s", exc)
        try:
            yield
        finally:
            if legacy is not None:
                await legacy.aclose()
            await upstream.aclose()

    routes = [  # extra routes first: they may replace /healthz
        *(extra_routes or []),
        Route(path, front.endpoint, methods=["GET", "POST", "DELETE", "PUT", "PATCH"]),
        Route("/healthz", front.healthz, methods=["GET"]),
        *server_card.single_routes(path, front),  # the Server Card and AI Catalog (front/server_card.py)
    ]
    # The MCP endpoint is also served straight from the guard (the route stays for HEAD/OPTIONS -> 405); not when a
    # resource-server guard (--auth-issuer) must see each request first.
    auth = resource_guard(settings, path)
    endpoints = {} if auth is not None or any(getattr(r, "path", None) == path for r in extra_routes or []) \
        else {path: front.endpoint}
    app = Starlette(routes=routes, lifespan=lifespan or default_lifespan,
                    middleware=[guard.guard_middleware(settings, endpoints=endpoints), *([auth] if auth is not None else [])])
    app.state.front = front
    app.state.drain = front.drain  # listens end with their completion when the server stops (clikit.run_asgi)
    app.state.max_body_bytes = settings.max_body_bytes  # the HTTP protocol's cap on declared chunks (clikit.server_config)
    # The same endpoint without the ASGI layers, for uvicorn's httptools protocol (mcp_eras.bridge.front.fast_post).
    app.state.fast_post = FastPost(front, path) if endpoints else None
    return app


"""Wires to one 2025-era server session: stdio child, Streamable HTTP (2025-03-26+), HTTP+SSE (2024-11-05).

A transport moves frames and reports where each inbound frame came from: ``related`` is the
upstream request id whose POST response stream carried it (Streamable HTTP), else None. It never
decides what a frame means; the session layer does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

import httpx

from mcp_eras.bridge import telemetry
from mcp_eras.bridge.core import UpstreamError
from mcp_eras.bridge.sse import ResponseEvents, sse_events
from mcp_eras.bridge.translate import errors, jsonrpc, trace_context
from mcp_eras.bridge.translate import probe as era_probe
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, Message, RequestId
from mcp_eras.bridge.upstream import lean_http
from mcp_eras.bridge.upstream.http_pool import rpc_extensions
from mcp_eras.bridge.upstream.process import ChildProcess

log = logging.getLogger("mcp_bridge.upstream")

Deliver = Callable[[Message, "RequestId | None"], Awaitable[None]]
OnLost = Callable[[str], Awaitable[None]]


class SessionLost(UpstreamError):
    """The upstream forgot the session (HTTP 404) or the process died: re-initialize."""


class LegacyTransport(ABC):
    kind: str = "?"

    def __init__(self) -> None:
        self.deliver: Deliver | None = None
        self.on_lost: OnLost | None = None
        self.take_response: Callable[[Message], bool] | None = None

    def bind(self, deliver: Deliver, on_lost: OnLost, take_response: Callable[[Message], bool] | None = None) -> None:
        """``deliver`` gets every inbound frame; ``take_response``, when given, may take responses first
        without a task switch (a stdio child's reader offers them; it returns whether it took the frame)."""
        self.deliver = deliver
        self.on_lost = on_lost
        self.take_response = take_response

    @abstractmethod
    async def open(self) -> None: ...

    @abstractmethod
    async def send(self, msg: Message) -> None: ...

    def initialized(self, version: str) -> None:
        """The handshake finished with ``version``: later HTTP requests carry it."""

    def abandon(self, upstream_id: RequestId) -> None:
        """Stop waiting for a response (after a cancel): close its response stream, if it has one."""

    @abstractmethod
    async def close(self) -> None: ...

    def describe(self) -> dict[str, Any]:
        return {"transport": self.kind}

    def faults(self) -> str:
        """What the upstream did wrong on this transport so far (quoted to a caller that times out), or ""."""
        return ""

    async def _deliver(self, msg: Message, related: RequestId | None) -> None:
        assert self.deliver is not None
        await self.deliver(msg, related)

    async def _lost(self, why: str) -> None:
        if self.on_lost is not None:
            await self.on_lost(why)


# ---------------------------------------------------------------------------------------------
# stdio
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Handshake:
    """The ``initialize`` an adopted child already answered (the era probe's confirmation) and its result."""

    params: Message
    result: Message


class StdioTransport(LegacyTransport):
    """One child process = one legacy session. A respawned child is a new, uninitialized session.

    ``child`` adopts an already-running child (the era probe's: one spawn per upstream). With ``handshake`` it was
    initialized already: the session's own ``initialize`` is answered with that result when it asks for the same
    capabilities and clientInfo (``era_probe.handshake_serves``); another identity gets a child of its own."""

    kind = "stdio"

    def __init__(self, argv: Sequence[str], *, env: dict[str, str] | None = None, cwd: str | None = None,
                 inherit_env: bool = True, name: str = "upstream", max_line_bytes: int = 16 * 1024 * 1024,
                 backoff_initial: float = 0.1, backoff_max: float = 10.0, child: ChildProcess | None = None,
                 handshake: Handshake | None = None, send_wait: float | None = None) -> None:
        super().__init__()

        def adopt(child: ChildProcess) -> ChildProcess:
            child.on_message, child.on_exit, child.name = self._on_message, self._on_exit, name
            child.on_response = self._on_response
            if send_wait is not None:
                child.send_wait = send_wait
            return child

        def spawn() -> ChildProcess:
            return adopt(ChildProcess(argv, on_message=self._on_message, env=env, cwd=cwd, inherit_env=inherit_env,
                                      name=name, max_line_bytes=max_line_bytes, backoff_initial=backoff_initial,
                                      backoff_max=backoff_max))

        self._spawn = spawn
        if child is not None:
            adopt(child).quiet = False
        self.child = child or spawn()
        self.handshake = handshake
        self._generation = 0

    async def open(self) -> None:
        await self.child.start()
        await self.child.wait_ready(30)
        self._generation = self.child.generation

    async def _on_message(self, msg: Message) -> None:
        await self._deliver(msg, None)

    def _on_response(self, msg: Message) -> bool:
        take = self.take_response
        return take is not None and take(msg)

    async def _on_exit(self, code: int) -> None:
        await self._lost(self.child.exit_description(code))

    def faults(self) -> str:
        return self.child.faults()

    def send(self, msg: Message) -> Awaitable[None]:  # type: ignore[override]
        """The child's own send (one coroutine less per frame), except for the probed child's handshake."""
        if self.handshake is not None:
            return self._send_after_handshake(msg)
        if self.child.generation != self._generation:
            raise SessionLost("upstream process was restarted")
        return self.child.send(msg)

    async def _send_after_handshake(self, msg: Message) -> None:
        if self.handshake is not None and msg.get("method") == "initialize" and jsonrpc.is_request(msg):
            handshake, self.handshake = self.handshake, None
            if era_probe.handshake_serves(handshake.params, msg.get("params")):
                await self._deliver(jsonrpc.result_response(msg["id"], handshake.result), None)
                return
            log.info("upstream %s: the probed child was initialized for another client; starting one for this session",
                     self.child.name)
            await self.child.aclose()
            self.child = self._spawn()
            await self.open()
        if self.child.generation != self._generation:
            raise SessionLost("upstream process was restarted")
        await self.child.send(msg)

    async def close(self) -> None:
        await self.child.aclose()

    def describe(self) -> dict[str, Any]:
        return {"transport": self.kind, "pid": self.child.pid, "restarts": self.child.restarts, "alive": self.child.alive}


def _error_for(upstream_id: RequestId, message: str, data: Any = None) -> Message:
    return jsonrpc.error_response(upstream_id, INTERNAL_ERROR, message, data)


# ---------------------------------------------------------------------------------------------
# Streamable HTTP (2025-03-26, 2025-06-18, 2025-11-25)
# ---------------------------------------------------------------------------------------------


RESUME_ATTEMPTS = 5
"""Reconnections of one request's response stream before the call is answered with an error."""
DEFAULT_RETRY_MS = 1000
"""The wait before resuming when the stream set no ``retry`` (the SSE reconnection time browsers start with is
implementation-defined; a few seconds is usual)."""


_pause = asyncio.sleep  # the wait before a resumption (a seam for tests that record it)


@dataclass(slots=True)
class _Resume:
    """Where a request's response stream can be resumed: the last event ID seen and the server's ``retry``, and
    when the request's time is up (its POST's start plus the transport's timeout: resuming never extends it)."""

    deadline: float
    last_id: str | None = None
    retry_ms: int | None = None


class StreamableHttpTransport(LegacyTransport):
    kind = "streamable-http"

    def __init__(self, url: str, client: httpx.AsyncClient, headers: dict[str, str] | None = None,
                 timeout: float = 300.0) -> None:
        super().__init__()
        self.url = url
        self.client = client
        self.headers = dict(headers or {})
        self.timeout = timeout
        self._post_timeout = httpx.Timeout(timeout, connect=10.0, pool=10.0)
        self.session_id: str | None = None
        self.version: str | None = None
        self._posts: dict[RequestId, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._get_task: asyncio.Task[None] | None = None
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop of the session's ``open()``: each request's task is made on it without ``asyncio.create_task``'s
        ``get_running_loop()`` (on CPython 3.11 a ``getpid()`` system call per request)."""

    def _headers(self, accept: str = "application/json, text/event-stream") -> dict[str, str]:
        h = {"Accept": accept, "Content-Type": "application/json", **self.headers}
        if self.session_id:
            h["Mcp-Session-Id"] = self.session_id
        if self.version:
            h["MCP-Protocol-Version"] = self.version
        return h

    async def open(self) -> None:
        self._loop = asyncio.get_running_loop()
        # (Re)initializing: forget a previous session, if any.
        if self._get_task is not None:
            self._get_task.cancel()
            self._get_task = None
        self.session_id = None
        self.version = None

    def initialized(self, version: str) -> None:
        self.version = version
        if self._get_task is None and self.session_id is not None:
            self._get_task = asyncio.create_task(self._get_stream())

    async def send(self, msg: Message) -> None:
        if self._closed:
            raise UpstreamError("transport closed")
        if jsonrpc.is_request(msg):
            # The request goes out now when a pooled connection is idle (its answer is read in a task of its own,
            # which then need not run first): the upstream starts on it one loop turn earlier.
            exchange: AbstractAsyncContextManager[Any] | None = None
            discard: Callable[[], None] | None = None
            try:
                exchange = self._exchange(msg)
                discard = lean_http.begin(exchange)
            except httpx.HTTPError:
                exchange = None  # the task meets the same error and answers the call with it
            rid = msg["id"]
            task = (self._loop or asyncio.get_running_loop()).create_task(self._post_request(msg, exchange))
            self._posts[rid] = task
            task.add_done_callback(lambda _t: self._post_done(rid, discard))
            return
        # Notifications and responses: the server answers 202 (or an error status): 2025-11-25
        # basic/transports.mdx §Sending Messages to the Server.
        try:
            resp = await self.client.post(self.url, content=jsonrpc.dumps(msg), headers=self._headers())
        except httpx.HTTPError as exc:
            raise UpstreamError(f"upstream unreachable: {exc}") from None
        if resp.status_code == 404 and self.session_id:
            await self._lost("upstream session expired (HTTP 404)")
            raise SessionLost("upstream session expired")
        if resp.status_code >= 400:
            log.warning("upstream answered %s to a %s", resp.status_code, msg.get("method", "response"))

    def abandon(self, upstream_id: RequestId) -> None:
        task = self._posts.pop(upstream_id, None)
        if task is not None:
            task.cancel()

    def _exchange(self, msg: Message) -> AbstractAsyncContextManager[Any]:
        headers = self._headers()
        if (trace := trace_context.header_fields(msg)) is not None:  # W3C trace context as headers too (issue #32)
            headers.update(trace)
            telemetry.upstream_session(trace, self.session_id)  # (mcp.session.id of the client span)
        return lean_http.post(self.client, self.url, jsonrpc.dumps(msg), headers, self._post_timeout,
                              rpc_extensions(msg.get("method")))

    def _post_done(self, rid: RequestId, discard: Callable[[], None] | None) -> None:
        self._posts.pop(rid, None)
        if discard is not None:
            discard()  # a request written but never read (its task was cancelled before it ran): drop its connection

    async def _pass(self, frame: Message, rid: RequestId) -> None:
        """An inbound frame of ``rid``'s response stream: a response straight to the session (``take_response``:
        no further coroutine), anything else through ``deliver``."""
        take = self.take_response
        if take is not None and "method" not in frame and take(frame):
            return
        await self._deliver(frame, rid)

    async def _post_request(self, msg: Message, exchange: AbstractAsyncContextManager[Any] | None = None) -> None:
        rid = msg["id"]
        answered = False
        resume = _Resume((self._loop or asyncio.get_running_loop()).time() + self.timeout)
        try:
            async with exchange if exchange is not None else self._exchange(msg) as resp:
                if self.session_id is None and "mcp-session-id" in resp.headers:
                    self.session_id = resp.headers["mcp-session-id"]
                ctype = resp.headers.get("content-type", "")
                if resp.status_code == 404 and (self.session_id and msg.get("method") != "initialize"):
                    await resp.aread()
                    # Answer this request first (it was not processed, so it may be retried: 2025-11-25
                    # basic/transports.mdx §Session Management), then report the session lost (which fails
                    # the session's other calls).
                    await self._deliver(_error_for(rid, *errors.legacy_upstream_status_error(resp.status_code)[1:]), rid)
                    await self._lost("upstream session expired (HTTP 404)")
                    return
                if resp.status_code >= 400:
                    body = (await resp.aread())[:2000]
                    parsed = _try_json(body)
                    if isinstance(parsed, dict) and "error" in parsed:
                        parsed["id"] = rid
                        await self._deliver(parsed, rid)
                    else:
                        _code, message, data = errors.legacy_upstream_status_error(resp.status_code)
                        if "www-authenticate" in resp.headers:
                            data["wwwAuthenticate"] = resp.headers["www-authenticate"]
                        await self._deliver(_error_for(rid, message, data), rid)
                    return
                if ctype.startswith("text/event-stream"):
                    events = ResponseEvents(resp)
                    while (batch := await events.next()) is not None:
                        for ev in batch:
                            if ev.id is not None:
                                resume.last_id = ev.id or None  # an empty id resets it (WHATWG SSE, "id" field)
                            if ev.retry is not None:
                                resume.retry_ms = ev.retry
                            if not ev.data:
                                continue
                            frame = _try_json(ev.data)
                            if not isinstance(frame, dict):
                                continue
                            if jsonrpc.is_response(frame) and frame.get("id") == rid:
                                answered = True
                            await self._pass(frame, rid)
                elif ctype.startswith("application/json"):
                    frame = _try_json(await resp.aread())
                    if isinstance(frame, dict):
                        answered = jsonrpc.is_response(frame)
                        await self._pass(frame, rid)
                elif resp.status_code == 202:
                    return
            if not answered and resume.last_id is not None:
                answered = await self._resume(rid, resume)
            if not answered:
                await self._deliver(_error_for(rid, "Upstream closed the response stream without answering"), rid)
        except asyncio.CancelledError:
            raise
        except httpx.HTTPError as exc:
            if not answered and resume.last_id is not None:
                answered = await self._resume(rid, resume)
            if not answered:
                await self._deliver(_error_for(rid, f"Upstream unreachable: {exc.__class__.__name__}: {exc}"), rid)

    async def _resume(self, rid: RequestId, resume: _Resume) -> bool:
        """Resume ``rid``'s response stream after it ended unanswered: wait the stream's ``retry``, then GET with
        ``Last-Event-ID`` (2025-11-25 basic/transports.mdx §Resumability and Redelivery: the server replays
        what followed that event, the answer included); the resumed stream may end unanswered too, so again,
        at most ``RESUME_ATTEMPTS`` times and within the request's deadline. True when the answer came."""
        try:
            async with asyncio.timeout_at(resume.deadline):
                for _attempt in range(RESUME_ATTEMPTS):
                    await _pause((resume.retry_ms if resume.retry_ms is not None else DEFAULT_RETRY_MS) / 1000)
                    if await self._resume_once(rid, resume):
                        return True
                    if resume.last_id is None or self._closed:
                        break
        except TimeoutError:
            log.debug("upstream stream of request %r not resumed before its deadline (%ss)", rid, self.timeout)
        return False

    async def _resume_once(self, rid: RequestId, resume: _Resume) -> bool:
        headers = self._headers("text/event-stream")
        headers["Last-Event-ID"] = str(resume.last_id)
        try:
            async with self.client.stream("GET", self.url, headers=headers,
                                          timeout=httpx.Timeout(self.timeout, connect=10.0)) as resp:
                if resp.status_code != 200 or not resp.headers.get("content-type", "").startswith("text/event-stream"):
                    await resp.aread()
                    log.debug("upstream refused to resume request %r: HTTP %s", rid, resp.status_code)
                    resume.last_id = None  # 405: no GET stream; 404: the session is gone -- nothing to resume
                    return False
                async for ev in sse_events(resp.aiter_bytes()):
                    if ev.id:
                        resume.last_id = ev.id
                    if ev.retry is not None:
                        resume.retry_ms = ev.retry
                    frame = _try_json(ev.data) if ev.data else None
                    if not isinstance(frame, dict):
                        continue
                    await self._pass(frame, rid)
                    if jsonrpc.is_response(frame) and frame.get("id") == rid:
                        return True  # leaving the block closes the resumed stream
        except httpx.HTTPError as exc:
            log.debug("resumed stream of request %r ended: %s", rid, exc)
        return False

    async def _get_stream(self) -> None:
        last_event: str | None = None
        delay = 1.0
        while not self._closed:
            headers = self._headers("text/event-stream")
            if last_event:
                headers["Last-Event-ID"] = last_event
            try:
                async with self.client.stream("GET", self.url, headers=headers, timeout=httpx.Timeout(None, connect=10.0)) as resp:
                    if resp.status_code == 405:
                        return
                    if resp.status_code == 404:
                        await self._lost("upstream session expired (HTTP 404 on GET)")
                        return
                    if resp.status_code >= 400:
                        await resp.aread()
                        raise httpx.HTTPStatusError("GET stream refused", request=resp.request, response=resp)
                    async for ev in sse_events(resp.aiter_bytes()):
                        if ev.retry is not None:
                            delay = ev.retry / 1000
                        if ev.id:
                            last_event = ev.id
                        frame = _try_json(ev.data) if ev.data else None
                        if isinstance(frame, dict):
                            await self._deliver(frame, None)
            except asyncio.CancelledError:
                raise
            except httpx.HTTPError as exc:
                log.debug("upstream GET stream ended: %s", exc)
            await asyncio.sleep(delay)

    async def close(self) -> None:
        self._closed = True
        tasks = list(self._posts.values()) + ([self._get_task] if self._get_task else [])
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(BaseException):
                await t
        if self.session_id:
            with contextlib.suppress(Exception):
                await self.client.delete(self.url, headers=self._headers(), timeout=5.0)

    def describe(self) -> dict[str, Any]:
        return {"transport": self.kind, "url": self.url, "session": bool(self.session_id), "version": self.version}


# ---------------------------------------------------------------------------------------------
# HTTP+SSE (2024-11-05, deprecated but widely deployed)
# ---------------------------------------------------------------------------------------------


class SseTransport(LegacyTransport):
    kind = "http+sse"

    def __init__(self, url: str, client: httpx.AsyncClient, headers: dict[str, str] | None = None,
                 timeout: float = 30.0) -> None:
        super().__init__()
        self.url = url
        self.client = client
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.endpoint: str | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    async def open(self) -> None:
        ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._reader = asyncio.create_task(self._read(ready))
        try:
            self.endpoint = await asyncio.wait_for(asyncio.shield(ready), self.timeout)
        except TimeoutError:
            self._reader.cancel()
            raise UpstreamError("HTTP+SSE upstream sent no endpoint event") from None

    async def _read(self, ready: asyncio.Future[str]) -> None:
        try:
            async with self.client.stream(
                "GET", self.url, headers={"Accept": "text/event-stream", **self.headers}, timeout=httpx.Timeout(None, connect=10.0)
            ) as resp:
                if resp.status_code != 200:
                    raise UpstreamError(f"HTTP+SSE upstream answered {resp.status_code}")
                async for ev in sse_events(resp.aiter_bytes()):
                    if ev.event == "endpoint":
                        if not ready.done():
                            ready.set_result(urljoin(self.url, ev.data.strip()))
                        continue
                    frame = _try_json(ev.data) if ev.data else None
                    if isinstance(frame, dict):
                        await self._deliver(frame, None)
        except asyncio.CancelledError:
            raise
        except (httpx.HTTPError, UpstreamError) as exc:
            if not ready.done():
                ready.set_exception(UpstreamError(str(exc)))
                return
        if not self._closed:
            await self._lost("HTTP+SSE stream ended")

    async def send(self, msg: Message) -> None:
        if self.endpoint is None or self._closed:
            raise UpstreamError("HTTP+SSE transport not open")
        try:
            resp = await self.client.post(
                self.endpoint, content=jsonrpc.dumps(msg), headers={"Content-Type": "application/json", **self.headers}
            )
        except httpx.HTTPError as exc:
            raise UpstreamError(f"upstream unreachable: {exc}") from None
        if resp.status_code == 404:
            await self._lost("HTTP+SSE session unknown (404)")
            raise SessionLost("HTTP+SSE session unknown")
        if resp.status_code >= 400:
            raise UpstreamError(f"HTTP+SSE upstream answered {resp.status_code}")

    async def close(self) -> None:
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader

    def describe(self) -> dict[str, Any]:
        return {"transport": self.kind, "url": self.url}


def _try_json(data: bytes | str) -> Any:
    try:
        return jsonrpc.loads(data)
    except Exception:  # noqa: BLE001
        return None

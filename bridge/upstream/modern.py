"""A 2026-07-28 server as the canonical upstream: pass-through with envelope validation.

* ``ModernHttpUpstream``: one POST per request (routing headers mirrored from the body it actually
  sends), JSON or SSE answers, closing the response stream is the cancel. One pooled httpx client.
* ``ModernStdioUpstream``: one long-lived child (``ChildProcess``), upstream ids minted here and
  mapped back, ``notifications/cancelled`` to cancel, in-flight calls failed when the child dies.

Both cache ``server/discover`` for its ``ttlMs`` (per principal unless ``cacheScope`` is public).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream, UpstreamError
from mcp_eras.bridge.sse import ResponseEvents
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate import modern_http as mh
from mcp_eras.bridge.translate import modern_upstream as mu
from mcp_eras.bridge.translate.eras import (
    MODERN,
)
from mcp_eras.bridge.translate.jsonrpc import Message, RequestId
from mcp_eras.bridge.upstream import lean_http
from mcp_eras.bridge.upstream.deadline import Deadline
from mcp_eras.bridge.upstream.http_pool import rpc_extensions, upstream_client
from mcp_eras.bridge.upstream.process import ChildProcess

log = logging.getLogger("mcp_bridge.upstream.modern")

LISTEN = mu.LISTEN


class _DiscoverCache:
    """The clock around ``modern_upstream``'s discover cache."""

    def __init__(self) -> None:
        self.state = mu.DiscoverCacheState()

    def get(self, principal: str | None) -> Message | None:
        return mu.cache_get(self.state, principal, time.monotonic())

    def put(self, principal: str | None, result: Message) -> None:
        mu.cache_put(self.state, principal, result, time.monotonic())

    def clear(self) -> None:
        self.state.entries.clear()


async def _discover(up: Upstream, cache: _DiscoverCache, settings: Settings, ctx: CallContext) -> Message:
    hit = cache.get(ctx.principal)
    if hit is not None:
        return hit
    req = jsonrpc.request("discover", "server/discover", {"_meta": mu.bridge_meta(settings.bridge_info())})
    outcome = mu.discover_outcome(await up.call(req, ctx, _discard))
    if isinstance(outcome, str):
        raise UpstreamError(outcome)
    cache.put(ctx.principal, outcome)  # only results with a positive ttlMs are kept
    return outcome


async def _discard(_msg: Message) -> None:
    return None


# ==============================================================================================
# HTTP
# ==============================================================================================


class ModernHttpUpstream(Upstream):
    """A 2026-07-28 Streamable HTTP server."""

    era = MODERN

    def __init__(self, url: str, settings: Settings, headers: dict[str, str] | None = None,
                 auth: httpx.Auth | None = None) -> None:
        self.url = url
        self.auth = auth
        self.settings = settings
        self.static_headers = dict(headers or {})
        self._client: httpx.AsyncClient | None = None
        self._ids = itertools.count(1)
        self._discover = _DiscoverCache()
        self._tool_headers: dict[str, dict[tuple[str, ...], str]] = {}
        self._tools_loaded = False
        self._tools_lock = asyncio.Lock()
        self.calls = 0
        # httpx timeouts of a call with a deadline, and of a listen (none: it lasts as long as its subscription)
        self._http_timeouts = (httpx.Timeout(settings.request_timeout, connect=settings.connect_timeout),
                               httpx.Timeout(None, connect=settings.connect_timeout))

    async def start(self) -> None:
        if self._client is None:
            # Every legacy session holds one long-lived listen stream: open connections are not capped.
            self._client = upstream_client(httpx.Timeout(self.settings.request_timeout, connect=self.settings.connect_timeout),
                                           self.settings.upstream_keepalive_expiry, auth=self.auth)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    def status(self) -> dict[str, Any]:
        return {"era": self.era, "transport": "http", "url": self.url, "calls": self.calls}

    async def discover(self, ctx: CallContext) -> Message:
        return await _discover(self, self._discover, self.settings, ctx)

    # --- headers -------------------------------------------------------------------------------

    def _learn_tools(self, result: dict[str, Any]) -> dict[str, Any]:
        """Cache ``x-mcp-header`` annotations; drop tools whose annotations are invalid (client MUST)."""
        kept, dropped = mh.learn_tools(self._tool_headers, result)
        for name in dropped:
            log.warning("dropping tool %r from tools/list: invalid x-mcp-header annotations", name)
        return kept

    async def _refresh_tools(self, meta: dict[str, Any], ctx: CallContext) -> None:
        async with self._tools_lock:
            cursor: Any = None
            for _ in range(100):
                params: dict[str, Any] = {"_meta": meta}
                if cursor is not None:
                    params["cursor"] = cursor
                req = jsonrpc.request(f"tools-{next(self._ids)}", "tools/list", params)
                resp = await self._exchange(req, ctx, _discard, req["id"])
                result = resp.get("result")
                if not isinstance(result, dict):
                    break
                self._learn_tools(result)
                cursor = result.get("nextCursor")
                if not isinstance(cursor, str):
                    break
            self._tools_loaded = True

    # --- calls ---------------------------------------------------------------------------------

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        if self._client is None:
            await self.start()
        self.calls += 1
        method = request.get("method")
        caller_id = request["id"]
        params = request.get("params") if isinstance(request.get("params"), dict) else {}
        if mh.needs_tool_schemas(method, self._tools_loaded, params):
            with contextlib.suppress(UpstreamError, httpx.HTTPError):
                await self._refresh_tools(self._list_meta(params), ctx)
        resp = await self._call_once(request, ctx, emit)
        if method == "tools/call" and mh.header_mismatch(resp):
            # Our tool schemas are stale: refresh, rebuild the headers from the body, retry once.
            with contextlib.suppress(UpstreamError, httpx.HTTPError):
                await self._refresh_tools(self._list_meta(params), ctx)
            resp = await self._call_once(request, ctx, emit)
            if mh.header_mismatch(resp):
                resp = mh.stale_headers_error(caller_id, resp)
        if method == "tools/list" and isinstance(resp.get("result"), dict):
            resp = {**resp, "result": self._learn_tools(resp["result"])}
            if mh.complete_listing(params, resp["result"]):
                self._tools_loaded = True  # a complete listing went by: the schema cache is whole
        return resp

    def _list_meta(self, params: dict[str, Any]) -> dict[str, Any]:
        """A listing of our own carries the caller's identity but none of its request-scoped keys."""
        return mh.listing_meta(params, self.settings.bridge_info())

    async def _call_once(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        wire_id: RequestId = next(self._ids)
        wire = {**request, "id": wire_id}
        if request.get("method") == LISTEN:
            return await self._exchange(wire, ctx, emit, request["id"], timeout=None)
        return await self._exchange(wire, ctx, emit, request["id"], timeout=self.settings.request_timeout)

    async def _exchange(self, wire: Message, ctx: CallContext, emit: Emit, caller_id: RequestId,
                        timeout: float | None = 300.0) -> Message:
        assert self._client is not None
        wire_id = wire["id"]
        caller = mh.forwarded_authorization(ctx.authorization, ctx.subject)  # never the caller's token behind a resource server
        headers = mh.request_headers(wire, self.static_headers, caller, ctx.trace, self._tool_headers)
        http_timeout = self._http_timeouts[0 if timeout else 1]
        deadline = Deadline(timeout) if timeout else None  # one timer and a check: no context manager per call
        try:
            async with lean_http.post(self._client, self.url, jsonrpc.dumps(wire), headers, http_timeout,
                                      rpc_extensions(wire.get("method"))) as resp:
                if mh.is_event_stream(resp.headers.get("content-type", "")):
                    found = await self._read_sse(resp, wire_id, caller_id, emit)
                    return mu.retag_response(found, wire_id, caller_id) if found is not None else mh.no_response(caller_id)
                body = await resp.aread()
                return mh.json_answer(body, resp.status_code, resp.headers.get("www-authenticate"), wire_id, caller_id)
        except asyncio.CancelledError:
            if deadline is not None and deadline.expired_here():
                return mh.timed_out(caller_id)
            raise
        except TimeoutError:
            return mh.timed_out(caller_id)
        except httpx.HTTPError as exc:
            raise UpstreamError(f"upstream {self.url} unreachable: {exc.__class__.__name__}: {exc}") from None
        finally:
            if deadline is not None:
                deadline.close()

    async def _read_sse(self, resp: Any, wire_id: RequestId, caller_id: RequestId, emit: Emit) -> Message | None:
        events = ResponseEvents(resp)
        try:
            while (batch := await events.next()) is not None:
                for event in batch:
                    if not event.data:
                        continue
                    try:
                        carried = mh.sse_message(event.data, wire_id, caller_id)
                    except jsonrpc.FrameError:
                        log.warning("upstream sent a malformed SSE frame: %.200r", event.data)
                        continue
                    if carried is None:
                        continue
                    kind, msg = carried
                    if kind == "response":
                        return msg
                    await emit(msg)
            return None
        finally:
            await events.aclose()


# ==============================================================================================
# stdio
# ==============================================================================================


@dataclass
class _InFlight:
    caller_id: RequestId
    method: str
    emit: Emit
    future: asyncio.Future[Message]
    progress_token: Any = None
    wire_token: str | None = None
    wants_logs: bool = False
    acked: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


class ModernStdioUpstream(Upstream):
    """A 2026-07-28 server as one supervised child process speaking NDJSON on stdio."""

    era = MODERN

    def __init__(self, argv: Sequence[str], settings: Settings, env: dict[str, str] | None = None, cwd: str | None = None,
                 inherit_env: bool = True, name: str = "modern-stdio", process: ChildProcess | None = None) -> None:
        """``process``: an already running child (the era probe's) to serve from instead of spawning another."""
        self.settings = settings
        self.argv = list(argv)
        self._ids = itertools.count(1)
        self._pending: dict[int, _InFlight] = {}
        self._by_token: dict[str, int] = {}
        self._discover = _DiscoverCache()
        self._started = process is not None
        if process is not None:
            process.on_message, process.on_exit, process.quiet, process.name = self._on_message, self._on_exit, False, name
            process.on_response = self._on_response
            self._proc = process
            return
        self._proc = ChildProcess(
            argv,
            on_message=self._on_message,
            on_exit=self._on_exit,
            env=env,
            inherit_env=inherit_env,
            cwd=cwd,
            max_line_bytes=settings.max_line_bytes,
            backoff_initial=settings.respawn_backoff_initial,
            backoff_max=settings.respawn_backoff_max,
            name=name,
        )
        self._proc.on_response = self._on_response  # responses reach their call from the pipe's callback

    @property
    def process(self) -> ChildProcess:
        return self._proc

    async def start(self) -> None:
        if not self._started:
            self._started = True
            await self._proc.start()
        await self._proc.wait_ready(self.settings.connect_timeout)

    async def aclose(self) -> None:
        self._fail_all("upstream closed")
        await self._proc.aclose()

    def status(self) -> dict[str, Any]:
        return {"era": self.era, "transport": "stdio", "pid": self._proc.pid, "restarts": self._proc.restarts,
                "inflight": len(self._pending)}

    async def discover(self, ctx: CallContext) -> Message:
        return await _discover(self, self._discover, self.settings, ctx)

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        await self.start()
        wire_id = next(self._ids)
        prepared = mu.prepare_wire(request, wire_id)
        wire = prepared.wire
        loop = asyncio.get_running_loop()
        entry = _InFlight(caller_id=request["id"], method=request.get("method", ""), emit=emit, future=loop.create_future(),
                          progress_token=prepared.progress_token, wire_token=prepared.wire_token,
                          wants_logs=prepared.wants_logs)
        if entry.wire_token:
            self._by_token[entry.wire_token] = wire_id
        self._pending[wire_id] = entry
        try:
            await self._proc.send(wire)
            if entry.method == LISTEN:
                resp = await entry.future
            else:
                try:
                    with anyio.fail_after(self.settings.request_timeout):
                        resp = await entry.future
                except TimeoutError:
                    await self._cancel_upstream(wire_id, "timed out")
                    return mh.timed_out(request["id"])
            return mu.retag_response(resp, wire_id, request["id"])
        except asyncio.CancelledError:
            if wire_id in self._pending:
                with contextlib.suppress(Exception):
                    await asyncio.shield(self._cancel_upstream(wire_id, "cancelled by the client"))
            raise
        finally:
            self._pending.pop(wire_id, None)
            if entry.wire_token:
                self._by_token.pop(entry.wire_token, None)

    async def _cancel_upstream(self, wire_id: int, reason: str) -> None:
        self._pending.pop(wire_id, None)
        with contextlib.suppress(UpstreamError):
            await self._proc.send(jsonrpc.notification("notifications/cancelled", {"requestId": wire_id, "reason": reason}))

    def _fail_all(self, why: str) -> None:
        for entry in list(self._pending.values()):
            if not entry.future.done():
                entry.future.set_exception(UpstreamError(why))
        self._pending.clear()
        self._by_token.clear()

    async def _on_exit(self, code: int) -> None:
        self._discover.clear()
        self._fail_all(f"upstream process exited with {code}")

    def _on_response(self, msg: Message) -> bool:
        """A response goes to the call it answers, or nowhere (``ChildProcess.on_response``: taken, always)."""
        rid = msg.get("id")
        entry = self._pending.get(rid) if isinstance(rid, int) else None
        if entry is not None and not entry.future.done():
            entry.future.set_result(msg)
        return True

    async def _on_message(self, msg: Message) -> None:
        if jsonrpc.is_response(msg):
            self._on_response(msg)
            return
        if jsonrpc.is_request(msg):
            with contextlib.suppress(UpstreamError):
                await self._proc.send(mh.server_request_refusal(msg))
            return
        await self._route_notification(msg)

    async def _route_notification(self, msg: Message) -> None:
        action, wire_id, out = mu.route_notification(msg, self._pending, self._by_token)
        entry = self._pending.get(wire_id) if wire_id is not None else None
        if entry is None or wire_id is None:
            log.debug("dropping unroutable upstream notification %s", msg.get("method"))
        elif action == "end-listen":
            if not entry.future.done():
                entry.future.set_result(mu.listen_closed(wire_id))
        elif out is not None:
            await self._deliver(entry, mu.retag_notification(out, wire_id, entry.caller_id))

    async def _deliver(self, entry: _InFlight, msg: Message) -> None:
        try:
            await entry.emit(msg)
        except Exception:  # noqa: BLE001 - a consumer bug must not stop the reader
            log.exception("emit failed for upstream notification %s", msg.get("method"))

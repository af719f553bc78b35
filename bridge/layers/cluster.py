"""Scale-out runtime of one instance: the registry heartbeat, and direction A's forwarding of an MRTR
retry to the instance that holds its parked call.

A parked call stays live on the instance holding the upstream request; its sealed ``requestState``
names that instance (``mcp_eras.bridge.state``). A retry that lands elsewhere is sent to the owner over its
internal endpoint (``POST /internal/forward``, authenticated by an HMAC of the body under a key derived
from the state key) and the owner's notifications and answer stream back as NDJSON. An owner that is
gone is the documented -32602 "lost" (2026-07-28 basic/patterns/mrtr.mdx §Request State: invalid state is
-32602), never a hang; gone means no live registry record AND no answer at the address the owner last
registered (an address book kept from the registry), so a registry emptied by a store fault never makes a live
owner "gone". A store that cannot be reached is -32603 naming the store; calls that need no shared state never
touch it. When a heartbeat finds its own record missing (the store restarted empty, or its writes were refused)
the instance registers again and publishes what it holds (``republishers``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

import httpx
import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from mcp_eras.bridge import telemetry
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream
from mcp_eras.bridge.front.bounded_body import bounded_body
from mcp_eras.bridge.scaleout.tool_headers import SharedParamHeaders
from mcp_eras.bridge.state import StateSealer
from mcp_eras.bridge.store.base import Store, StoreError
from mcp_eras.bridge.translate import cluster as fw
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.cluster import AUTH_HEADER, FORWARD_PATH, FORWARD_SKEW_MS, forward_key, lost
from mcp_eras.bridge.translate.cluster import sign as _sign
from mcp_eras.bridge.translate.errors import OK_STATUS
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, Message

log = logging.getLogger("mcp_bridge.cluster")

__all__ = ["AUTH_HEADER", "FORWARD_PATH", "FORWARD_SKEW_MS", "ClusterUpstream", "forward_key", "lost", "store_down"]


def store_down(rid: Any, exc: StoreError) -> Message:
    return fw.store_down(rid, str(exc), exc.store)


class ClusterUpstream(Upstream):
    """Wraps this instance's upstream: local calls pass through; a retry sealed by another instance is
    forwarded to it. Registers and heartbeats this instance while started."""

    wraps = True

    def __init__(self, inner: Upstream, settings: Settings, store: Store, advertise_url: str) -> None:
        self.inner: Upstream = inner
        self.era = inner.era
        self.settings = settings
        self.store = store
        self.instance_id = settings.instance_id
        self.advertise_url = advertise_url.rstrip("/")
        self.sealer = StateSealer(settings.state_key, settings.instance_id, settings.state_ttl)
        self._key = forward_key(settings.state_key)
        self._http: httpx.AsyncClient | None = None
        self._beat: asyncio.Task[None] | None = None
        self.peers: dict[str, Any] = {}
        self.known: dict[str, dict[str, Any]] = {}
        """Address book: the last registry record of every instance seen (bounded, ``fw.MAX_KNOWN_PEERS``)."""
        self.republishers: list[Callable[[], Awaitable[None]]] = []
        """What publishes this instance's holdings again to a store that lost them (sessions, task records)."""
        self.store_ok = False
        self.store_fault_at: float | None = None
        """When (monotonic) this instance last saw the store fail or forget its record (``fw.may_probe``)."""
        self.forwarded = {"out": 0, "in": 0, "lost": 0, "store_errors": 0, "store_reconnects": 0, "republished": 0}
        self.param_headers = SharedParamHeaders(store, settings.discover_ttl_ms, self.spawn)
        """Installed as the 2026 front's ``param_headers`` (``mcp_eras.bridge.scaleout.wiring``)."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.task_counts: list[dict[str, int]] = []
        """Counters of the task routers attached to this instance (``mcp_eras.bridge.scaleout.tasks``)."""
        self.extra_status: Callable[[], dict[str, Any]] | None = None
        """More to show under ``cluster`` in /healthz (the 2025 sessions' relay counters)."""

    # --- lifecycle ---------------------------------------------------------------------------------

    def http(self) -> httpx.AsyncClient:
        """The client for calls to other instances (created by ``start``)."""
        assert self._http is not None, "ClusterUpstream.start() was not called"
        return self._http

    async def start(self) -> None:
        if self._http is None:
            timeout = httpx.Timeout(self.settings.request_timeout + 5, connect=min(2.0, self.settings.connect_timeout))
            self._http = httpx.AsyncClient(timeout=timeout, limits=httpx.Limits(max_connections=256))
        if self._beat is None:
            self._beat = asyncio.get_running_loop().create_task(self._heartbeats())
        await self.inner.start()

    async def aclose(self) -> None:
        await self.close_cluster()
        await self.inner.aclose()

    async def close_cluster(self) -> None:
        """Leave the registry and release the store and the peer client (not the wrapped upstream)."""
        if self._beat is not None:
            await _finish(self._beat)
            self._beat = None
        with contextlib.suppress(StoreError):
            await self.store.forget_instance(self.instance_id)
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        await self.store.aclose()

    async def _heartbeats(self) -> None:
        """Beat every interval; the record lapses after three missed beats. On store errors back off
        (doubling up to ``fw.MAX_HEARTBEAT_BACKOFF_S``) and carry on: the redis client reconnects on the next
        command. A beat that finds this instance's record missing, or that follows failed beats, publishes again
        what this instance holds."""
        interval = self.settings.heartbeat_interval
        backoff = interval
        info = {"url": self.advertise_url, "started_ms": int(time.time() * 1000)}
        failed, registered = False, False
        while True:
            try:
                was_there = await self.store.heartbeat(self.instance_id, info, int(interval * 3000))
                if registered and fw.must_republish(was_there, failed):
                    self.store_fault_at = time.monotonic()
                    await self.republish()
                registered = True
                self.peers = await self.store.instances()
                fw.remember(self.known, self.peers)
                await self.param_headers.refresh()
                if not self.store_ok:
                    log.info("instance %s registered in %s", self.instance_id, self.store.name)
                if failed:
                    self.forwarded["store_reconnects"] += 1
                self.store_ok, backoff, failed = True, fw.heartbeat_backoff(interval, backoff, True), False
            except StoreError as exc:
                if self.store_ok:
                    log.warning("heartbeat failed: %s", exc)
                self.count_store_error()
                self.store_ok, backoff, failed = False, fw.heartbeat_backoff(interval, backoff, False), True
            await asyncio.sleep(backoff)

    async def republish(self) -> None:
        """Publish again what this instance holds (each republisher's own store errors are its own)."""
        log.info("instance %s publishes its holdings again to %s", self.instance_id, self.store.name)
        self.forwarded["republished"] += 1
        for republish in list(self.republishers):
            try:
                await republish()
            except StoreError as exc:
                self.count_store_error()
                log.warning("holdings not published again: %s", exc)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def counters(self) -> dict[str, int]:
        """This instance's cluster counters (``/metrics``): forwards out/in and their failures, store errors
        and reconnects, plus the 2025 sessions' relay counters (``extra_status``)."""
        relayed = (self.extra_status() if self.extra_status is not None else {}).get("relayed") or {}
        return fw.counters(self.forwarded, relayed, self.task_counts)

    def count_store_error(self) -> None:
        self.forwarded["store_errors"] += 1
        self.store_fault_at = time.monotonic()

    def status(self) -> dict[str, Any]:
        return {**self.inner.status(), "cluster": self.cluster_status()}

    def cluster_status(self) -> dict[str, Any]:
        out = {"instance": self.instance_id, "store": self.store.name, "store_ok": self.store_ok,
               "instances": sorted(self.peers), "forwarded": dict(self.forwarded)}
        if self.extra_status is not None:
            out.update(self.extra_status())
        return out

    # --- calls ----------------------------------------------------------------------------------------

    async def discover(self, ctx: CallContext) -> Message:
        """The upstream's DiscoverResult (what a 2025 ``initialize`` is answered from), shared by the instances
        for its ``ttlMs``, per caller unless its ``cacheScope`` is public. A client's own ``server/discover``
        goes to the upstream (its version negotiation is the upstream's)."""
        scopes = fw.discover_scopes(ctx.principal)
        for scope in scopes:
            cached = await self._cached(scope)
            if cached is not None:
                return cached
        result = await self.inner.discover(ctx)
        shared = fw.discover_cache(result, scopes)
        if shared is not None:
            scope, ttl = shared
            with contextlib.suppress(StoreError):
                await self.store.cache_put("discover", scope, result, ttl)
        return result

    async def _cached(self, scope: str) -> Message | None:
        if not self.store_ok:
            return None  # the store failed its last heartbeat: no wait on it for a cache
        try:
            return await self.store.cache_get("discover", scope)
        except StoreError:
            self.count_store_error()
            return None  # a cache: the upstream answers instead

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        owner = self._owner(request)
        if fw.runs_here(owner, self.instance_id):
            return await self.inner.call(request, ctx, emit)
        assert owner is not None
        if (traced := telemetry.current()) is not None:  # (OpenTelemetry on: a span for the hop, issue #32)
            return await traced.forwarded(owner, request, ctx, lambda req, c: self._forward(owner, req, c, emit))
        return await self._forward(owner, request, ctx, emit)

    def _owner(self, request: Message) -> str | None:
        state = fw.sealed_state(request)
        return None if state is None else self.sealer.issuer(state)

    async def locate(self, instance: str) -> dict[str, Any] | None:
        """Where an instance is: the last heartbeat's listing when it is there (saves a store read per forwarded
        request; a dead instance listed there refuses the connection), else the store, else the address it last
        registered (a registry emptied by a store fault is no proof that it is gone: a dead one refuses the
        connection). StoreError only when the store fails and the instance was never seen."""
        record = self.peers.get(instance)
        if record is not None:
            return record
        try:
            record = await self.store.instance(instance) if self.store_ok or instance not in self.known else None
        except StoreError:
            self.count_store_error()
            if instance not in self.known:
                raise
        return record if record is not None else self.known.get(instance)

    async def _forward(self, owner: str, request: Message, ctx: CallContext, emit: Emit) -> Message:
        rid = request.get("id")
        try:
            answer = await self.forward(owner, request, ctx, emit)
        except StoreError as exc:
            return store_down(rid, exc)
        return answer if isinstance(answer, dict) else lost(rid, answer)

    async def forward(self, owner: str, request: Message, ctx: CallContext, emit: Emit) -> Message | str:
        """Run ``request`` on instance ``owner`` (its notifications go to ``emit``): the owner's answer, or why
        it could not be reached (a str: the owner is gone). StoreError when the registry cannot be read."""
        record = await self.locate(owner)
        gone = fw.owner_gone(owner, record)
        if gone is not None:
            self.forwarded["lost"] += 1
            return gone
        assert record is not None
        caller = fw.caller_fields(ctx.principal, ctx.authorization, ctx.trace, ctx.client_era, ctx.subject, ctx.scopes,
                                  ctx.subject_token)
        body = fw.forward_body(request, caller, self.instance_id, int(time.time() * 1000))
        self.forwarded["out"] += 1
        try:
            async with self.http().stream("POST", record["url"] + FORWARD_PATH, content=body,
                                         headers={AUTH_HEADER: _sign(self._key, body), "content-type": "application/json"}) as resp:
                if resp.status_code != OK_STATUS:
                    self.forwarded["lost"] += 1
                    return fw.refused(owner, resp.status_code)
                async for line in resp.aiter_lines():
                    frame = fw.read_line(line)
                    if frame is None:
                        continue
                    if frame[0] == "done":
                        return frame[1]
                    await emit(frame[1])
        except (httpx.HTTPError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
            log.info("forward to %s failed: %s", owner, exc)
        self.forwarded["lost"] += 1
        return fw.no_answer(owner)

    # --- the owner's side ------------------------------------------------------------------------------

    async def serve_forward(self, request: Request) -> Response:
        body = await bounded_body(request, self.settings.max_body_bytes)
        if not isinstance(body, bytes):
            return Response(status_code=body)
        got = fw.read_forward(body, request.headers.get(AUTH_HEADER, ""), self._key, int(time.time() * 1000),
                              self.settings.max_body_bytes)
        if isinstance(got, int):
            return Response(status_code=got)
        ctx = CallContext(principal=got.principal, authorization=got.authorization, trace=got.trace, client_era=got.client_era,
                          subject=got.subject, scopes=got.scopes, subject_token=got.subject_token)
        self.forwarded["in"] += 1
        return StreamingResponse(self._run_forwarded(got.request, ctx), media_type="application/x-ndjson")

    async def _run_forwarded(self, msg: Message, ctx: CallContext) -> AsyncIterator[bytes]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()

        async def emit(note: Message) -> None:
            queue.put_nowait(fw.note_line(note))

        async def run() -> None:
            try:
                response = await self.inner.call(msg, ctx, emit)
            except Exception as exc:  # noqa: BLE001 - a bug becomes an error answer, never a hang
                log.exception("forwarded call failed")
                response = jsonrpc.error_response(msg.get("id"), INTERNAL_ERROR, f"Internal error: {exc.__class__.__name__}")
            queue.put_nowait(fw.done_line(response))

        task = asyncio.get_running_loop().create_task(run())
        try:
            while True:
                line = await queue.get()
                yield line
                if fw.is_done_line(line):
                    return
        finally:
            # The forwarding instance went away (its client cancelled): cancel here too.
            await _finish(task)

    def routes(self) -> list[Route]:
        return [Route(FORWARD_PATH, self.serve_forward, methods=["POST"])]


async def _finish(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` unless it is done, and wait for it."""
    task.cancel()
    with contextlib.suppress(BaseException):
        await task

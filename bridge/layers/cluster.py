"""Scale-out runtime of one instance: the registry heartbeat, and direction A's forwarding of an MRTR
retry to the instance that holds its parked call.

A parked call stays live on the instance holding the upstream request; its sealed ``requestState``
names that instance (``mcp_eras.bridge.state``). A retry that lands elsewhere is sent to the owner over its
internal endpoint (``POST /internal/forward``, authenticated by an HMAC of the body under a key derived
from the state key) and the owner's notifications and answer stream back as NDJSON. An owner that is
gone (no live registry record, refused connection, stream cut) is the documented -32602 "lost"
(2026-07-28 basic/patterns/mrtr.mdx §Request State: invalid state is -32602), never a hang. A store
that cannot be reached is -32603 naming the store; calls that need no shared state never touch it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import httpx
import orjson
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import CallContext, Emit, Upstream
from mcp_eras.bridge.scaleout.tool_headers import SharedParamHeaders
from mcp_eras.bridge.state import StateSealer
from mcp_eras.bridge.store.base import Store, StoreError
from mcp_eras.bridge.translate import eras, jsonrpc
from mcp_eras.bridge.translate.errors import BAD_REQUEST_STATUS, CONTENT_TOO_LARGE_STATUS, FORBIDDEN_STATUS, OK_STATUS
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, Message

log = logging.getLogger("mcp_bridge.cluster")

FORWARD_PATH = "/internal/forward"
AUTH_HEADER = "x-mcp-bridge-forward"
FORWARD_SKEW_MS = 30_000
"""A forwarded body older (or newer) than this is refused (replay window)."""


def forward_key(state_key: bytes) -> bytes:
    """The inter-instance key: one-way from the state key, so it never reveals the sealing key."""
    return hmac.new(state_key, b"mcp-bridge/internal-forward/v1", hashlib.sha256).digest()


def _sign(key: bytes, body: bytes) -> str:
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def lost(rid: Any, why: str) -> Message:
    return jsonrpc.error_response(rid, INVALID_PARAMS, f"Invalid requestState: lost ({why})", {"reason": "lost"})


def store_down(rid: Any, exc: StoreError) -> Message:
    return jsonrpc.error_response(rid, INTERNAL_ERROR, f"Internal error: {exc}", {"store": exc.store})


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
        self.store_ok = False
        self.forwarded = {"out": 0, "in": 0, "lost": 0, "store_errors": 0, "store_reconnects": 0}
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
        (doubling up to 5 s) and carry on: the redis client reconnects on the next command."""
        interval = self.settings.heartbeat_interval
        backoff = interval
        info = {"url": self.advertise_url, "started_ms": int(time.time() * 1000)}
        failed = False
        while True:
            try:
                await self.store.heartbeat(self.instance_id, info, int(interval * 3000))
                self.peers = await self.store.instances()
                await self.param_headers.refresh()
                if not self.store_ok:
                    log.info("instance %s registered in %s", self.instance_id, self.store.name)
                if failed:
                    self.forwarded["store_reconnects"] += 1
                self.store_ok, backoff, failed = True, interval, False
            except StoreError as exc:
                if self.store_ok:
                    log.warning("heartbeat failed: %s", exc)
                self.forwarded["store_errors"] += 1
                self.store_ok, backoff, failed = False, min(5.0, backoff * 2), True
            await asyncio.sleep(backoff)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def counters(self) -> dict[str, int]:
        """This instance's cluster counters (``/metrics``): forwards out/in and their failures, store errors
        and reconnects, plus the 2025 sessions' relay counters (``extra_status``)."""
        out = {f"forwarded_{k}" if k in ("out", "in") else k: v for k, v in self.forwarded.items()}
        out["forward_failures"] = out.pop("lost")
        relayed = (self.extra_status() if self.extra_status is not None else {}).get("relayed") or {}
        out.update({f"sessions_{k}": int(v) for k, v in relayed.items()})
        for counts in self.task_counts:
            for k, v in counts.items():
                out[f"tasks_{k}"] = out.get(f"tasks_{k}", 0) + v
        return out

    def count_store_error(self) -> None:
        self.forwarded["store_errors"] += 1

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
        scopes = (f"private:{ctx.principal or '-'}", "public")
        for scope in scopes:
            cached = await self._cached(scope)
            if cached is not None:
                return cached
        result = await self.inner.discover(ctx)
        ttl = result.get("ttlMs")
        if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl > 0:
            scope = scopes[1] if result.get("cacheScope") == "public" else scopes[0]
            with contextlib.suppress(StoreError):
                await self.store.cache_put("discover", scope, result, ttl)
        return result

    async def _cached(self, scope: str) -> Message | None:
        try:
            return await self.store.cache_get("discover", scope)
        except StoreError:
            self.forwarded["store_errors"] += 1
            return None  # a cache: the upstream answers instead

    async def call(self, request: Message, ctx: CallContext, emit: Emit) -> Message:
        owner = self._owner(request)
        if owner is None or owner == self.instance_id:
            return await self.inner.call(request, ctx, emit)
        return await self._forward(owner, request, ctx, emit)

    def _owner(self, request: Message) -> str | None:
        params = request.get("params")
        if request.get("method") not in eras.MRTR_METHODS or not isinstance(params, dict) or "requestState" not in params:
            return None
        return self.sealer.issuer(params["requestState"])

    async def locate(self, instance: str) -> dict[str, Any] | None:
        """An instance's registry record: from the last heartbeat's listing when it is there (saves a store
        read per forwarded request; a dead instance listed there refuses the connection), else the store."""
        record = self.peers.get(instance)
        return record if record is not None else await self.store.instance(instance)

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
        try:
            record = await self.locate(owner)
        except StoreError:
            self.forwarded["store_errors"] += 1
            raise
        if record is None or not isinstance(record.get("url"), str):
            self.forwarded["lost"] += 1
            return f"bridge instance {owner} is gone"
        body = orjson.dumps({
            "request": request, "principal": ctx.principal, "authorization": ctx.authorization, "trace": ctx.trace,
            "client_era": ctx.client_era, "from": self.instance_id, "at_ms": int(time.time() * 1000),
        })
        self.forwarded["out"] += 1
        try:
            async with self.http().stream("POST", record["url"] + FORWARD_PATH, content=body,
                                         headers={AUTH_HEADER: _sign(self._key, body), "content-type": "application/json"}) as resp:
                if resp.status_code != OK_STATUS:
                    self.forwarded["lost"] += 1
                    return f"bridge instance {owner} refused the forward ({resp.status_code})"
                async for line in resp.aiter_lines():
                    if not line:
                        continue
                    frame = orjson.loads(line)
                    if "done" in frame:
                        return frame["done"]
                    await emit(frame["note"])
        except (httpx.HTTPError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
            log.info("forward to %s failed: %s", owner, exc)
        self.forwarded["lost"] += 1
        return f"bridge instance {owner} did not answer"

    # --- the owner's side ------------------------------------------------------------------------------

    async def serve_forward(self, request: Request) -> Response:
        body = await request.body()
        if len(body) > self.settings.max_body_bytes + 65536:
            return Response(status_code=CONTENT_TOO_LARGE_STATUS)
        if not hmac.compare_digest(request.headers.get(AUTH_HEADER, ""), _sign(self._key, body)):
            return Response(status_code=FORBIDDEN_STATUS)
        try:
            data = orjson.loads(body)
            msg, at_ms = data["request"], int(data["at_ms"])
            ctx = CallContext(principal=data.get("principal"), authorization=data.get("authorization"),
                              trace=dict(data.get("trace") or {}), client_era=data.get("client_era") or eras.MODERN)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return Response(status_code=BAD_REQUEST_STATUS)
        if abs(time.time() * 1000 - at_ms) > FORWARD_SKEW_MS or not isinstance(msg, dict):
            return Response(status_code=BAD_REQUEST_STATUS)
        self.forwarded["in"] += 1
        return StreamingResponse(self._run_forwarded(msg, ctx), media_type="application/x-ndjson")

    async def _run_forwarded(self, msg: Message, ctx: CallContext) -> AsyncIterator[bytes]:
        queue: asyncio.Queue[bytes] = asyncio.Queue()

        async def emit(note: Message) -> None:
            queue.put_nowait(orjson.dumps({"note": note}) + b"\n")

        async def run() -> None:
            try:
                response = await self.inner.call(msg, ctx, emit)
            except Exception as exc:  # noqa: BLE001 - a bug becomes an error answer, never a hang
                log.exception("forwarded call failed")
                response = jsonrpc.error_response(msg.get("id"), INTERNAL_ERROR, f"Internal error: {exc.__class__.__name__}")
            queue.put_nowait(orjson.dumps({"done": response}) + b"\n")

        task = asyncio.get_running_loop().create_task(run())
        try:
            while True:
                line = await queue.get()
                yield line
                if line.startswith(b'{"done"'):
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

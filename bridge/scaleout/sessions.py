"""Direction B scaled out: any instance answers any 2025 session.

The instance that ran ``initialize`` serves the session (its upstream listen, its GET stream, its
bridge->client questions); the session's facts — the pure session machine's state
(``mcp_eras.bridge.translate.legacy_client.session.SessionState``, plain JSON), and which instance serves it — go to the
shared store with the idle TTL. A request for a session this instance does not hold is relayed to the
owner's internal endpoint (``/internal/session``, authenticated like ``/internal/forward``) and the
answer (JSON or SSE) streams back unchanged; so a subscribe POSTed anywhere reaches the GET stream's
holder, a client's answer to a server->client request reaches the instance that asked, and DELETE
anywhere ends the session everywhere. When the owner is gone (no registry record and no answer at the
address it last registered), the first instance to see the session adopts it from the stored facts (one
adopter wins, atomically): its in-flight requests and unreplayed GET events died with the owner; the session
itself continues.

Store faults: when the store does not know the session (it restarted empty, or refused the write) or cannot be
read, the instances are asked directly (a probe each, answered from what they hold, no store read) and the
one holding the session serves it, so a client's answer to a server->client request still reaches the
instance that asked. Only when none holds it is the answer a 404 (unknown session) or a 503 naming the store.
While the store fails its heartbeats, an instance writes nothing of its sessions (no request waits on it) and
publishes them again when the store returns (``ClusterUpstream.republishers``).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.front.bounded_body import bounded_body
from mcp_eras.bridge.front.event_stream import parse_event_id
from mcp_eras.bridge.front.http import call_context, json_message, rpc_error
from mcp_eras.bridge.front.legacy_http import LegacyHttpFront
from mcp_eras.bridge.layers.cluster import AUTH_HEADER, FORWARD_SKEW_MS, ClusterUpstream
from mcp_eras.bridge.sse import sse_event
from mcp_eras.bridge.store.base import StoreError
from mcp_eras.bridge.translate import cluster as fw
from mcp_eras.bridge.translate import jsonrpc
from mcp_eras.bridge.translate.eras import LEGACY
from mcp_eras.bridge.translate.errors import (
    BAD_REQUEST_STATUS,
    FORBIDDEN_STATUS,
    LEGACY_SESSION_NOT_FOUND_STATUS,
    UNAVAILABLE_STATUS,
)
from mcp_eras.bridge.translate.jsonrpc import INTERNAL_ERROR, FrameError, Message
from mcp_eras.bridge.translate.legacy_client import session as ls

log = logging.getLogger("mcp_bridge.cluster.sessions")

SESSION_PATH = "/internal/session"
AT_HEADER = "x-mcp-bridge-at"
PROBE_HEADER = "x-mcp-bridge-probe"
"""On a relayed request: answer only from a session held here, else 404 with ``NOT_HERE_HEADER`` (no store read)."""
NOT_HERE_HEADER = "x-mcp-bridge-not-here"
_HOP_HEADERS = {"host", "content-length", "connection", "transfer-encoding", "keep-alive", AUTH_HEADER, AT_HEADER,
                PROBE_HEADER, NOT_HERE_HEADER}
MAX_STORED_EVENTS = 1000
"""GET-stream events kept per session in the store (and the retention window, ``event_retention``)."""
_PASS_BACK = ("content-type", "mcp-session-id", "cache-control", "www-authenticate")


def _relay_mac(key: bytes, method: str, sid: str, at_ms: str, body: bytes) -> str:
    return hmac.new(key, f"{method}\n{sid}\n{at_ms}\n".encode() + body, hashlib.sha256).hexdigest()


def durable(state: ls.SessionState) -> dict:
    """What a new owner needs: the machine's state without what died with the old owner's tasks."""
    data = state.to_json()
    data.update(inflight=[], outstanding={}, deadline=0.0)
    return data


class ClusterLegacyFront:
    """``LegacyFrontProtocol`` over a shared store: local sessions go to ``inner``, others are relayed
    to their owner or adopted."""

    def __init__(self, inner: LegacyHttpFront, cluster: ClusterUpstream, settings: Settings) -> None:
        self.inner = inner
        self.cluster = cluster
        self.settings = settings
        self.store = cluster.store
        self.me = cluster.instance_id
        self._key = cluster._key
        self._saved: dict[str, dict] = {}
        self._touched: dict[str, float] = {}
        self.relayed = {"out": 0, "in": 0, "adopted": 0, "replayed": 0, "probed": 0, "probes_skipped": 0,
                        "events_dropped": 0}
        self._probe_bucket: tuple[float, float] | None = None
        """Probe rounds for sessions the store does not know, outside a store fault's window (``fw.may_probe``)."""
        self._epochs: dict[str, int] = {}
        """Adopted sessions: the first GET-stream sequence this instance used (older ids are the old owner's)."""
        self._writers: dict[str, tuple[asyncio.Queue[tuple[int, Message]], asyncio.Task[None]]] = {}
        self._saving: set[str] = set()
        self._resave: set[str] = set()
        """Sessions whose state is being written, and those changed again meanwhile (``_save_soon``)."""
        self._adopting: dict[str, asyncio.Event] = {}
        """Sessions this instance is adopting now: a request for one waits for that adoption (at most the request
        timeout) instead of adopting it a second time (the record names this instance already, so its claim would
        succeed and a second slot would replace the first, its session started and never closed)."""
        cluster.republishers.append(self.republish)

    @property
    def ttl_ms(self) -> int:
        return int(self.settings.session_idle_timeout * 1000)

    # --- LegacyFrontProtocol -------------------------------------------------------------------------

    async def handle_post(self, request: Request, msg: Message) -> Response:
        if jsonrpc.is_request(msg) and msg.get("method") == "initialize":
            resp = await self.inner.handle_post(request, msg)
            sid = resp.headers.get("mcp-session-id")
            if sid:
                await self._record(sid)
            return resp
        body = jsonrpc.dumps(msg)
        return await self._route(request, body, msg.get("id"), lambda: self._local_post(request, msg))

    async def handle_get(self, request: Request) -> Response:
        return await self._route(request, b"", None, lambda: self._replaying_get(request))

    async def handle_delete(self, request: Request) -> Response:
        return await self._route(request, b"", None, lambda: self._local_delete(request))

    async def aclose(self) -> None:
        for sid in list(self._writers):
            self._forget(sid)
        await self.inner.aclose()

    def status(self) -> dict:
        return {"sessions": len(self.inner.sessions), "relayed": dict(self.relayed)}

    # --- local service ---------------------------------------------------------------------------------

    async def _local_post(self, request: Request, msg: Message) -> Response:
        resp = await self.inner.handle_post(request, msg)
        sid = request.headers.get("mcp-session-id")
        if sid and sid in self.inner.sessions and self.cluster.store_ok:
            self._save_soon(sid)  # (while the store fails, nothing is written: ``republish`` writes it later)
        return resp

    async def _local_delete(self, request: Request) -> Response:
        sid = request.headers.get("mcp-session-id") or ""
        resp = await self.inner.handle_delete(request)
        if resp.status_code < 300:
            self._forget(sid)
            try:
                await self.store.delete_session(sid)
            except StoreError as exc:
                self.cluster.count_store_error()
                log.warning("session %s ended here but not in the store: %s", sid, exc)
        return resp

    def _state(self, sid: str) -> ls.SessionState | None:
        slot = self.inner.sessions.get(sid)
        return slot.session.state if slot is not None and slot.session is not None else None

    async def _record(self, sid: str) -> None:
        state = self._state(sid)
        if state is None:
            return
        self._keep_events(sid)
        if not self.cluster.store_ok:
            log.warning("session %s is served by this instance only until the store returns", sid)
            return
        snapshot = durable(state)
        try:
            await self.store.create_session(sid, {"machine": snapshot}, self.ttl_ms, owner=self.me)
            self._saved[sid], self._touched[sid] = snapshot, time.monotonic()
        except StoreError as exc:
            self.cluster.count_store_error()
            log.warning("session %s is served by this instance only: %s", sid, exc)

    async def republish(self) -> None:
        """Publish again the sessions this instance serves (the store lost them, or refused their writes): a
        missing record is created with this instance as owner; an existing one this instance owns gets its
        current state. A record another instance owns now is left alone. Raises StoreError (the caller logs)."""
        for sid in list(self.inner.sessions):
            state = self._state(sid)
            if state is None:
                continue
            snapshot = durable(state)
            if not await self.store.create_session(sid, {"machine": snapshot}, self.ttl_ms, owner=self.me):
                rec = await self.store.session(sid, ttl_ms=self.ttl_ms)
                if rec is None or rec.get("owner") != self.me:
                    continue
                await self.store.set_session_state(sid, "machine", snapshot)
            self._saved[sid], self._touched[sid] = snapshot, time.monotonic()

    # --- the GET stream's events in the store ------------------------------------------------------------

    def _keep_events(self, sid: str) -> None:
        """Copy each GET-stream event to the session's stream in the store, in order (one writer per session),
        so that the instance adopting the session can replay what the client had not received."""
        slot = self.inner.sessions.get(sid)
        if slot is None:
            return
        queue: asyncio.Queue[tuple[int, Message]] = asyncio.Queue(MAX_STORED_EVENTS)

        def push(seq: int, msg: Message) -> None:
            if queue.full():  # the store is slow or away: the oldest unwritten event goes, as the store would trim it
                queue.get_nowait()
                self.relayed["events_dropped"] += 1
            queue.put_nowait((seq, msg))

        slot.get_stream.on_push = push
        self._writers[sid] = (queue, asyncio.get_running_loop().create_task(self._write_events(sid, queue)))

    async def _write_events(self, sid: str, queue: asyncio.Queue[tuple[int, Message]]) -> None:
        retention_ms = int(self.settings.event_retention * 1000)
        while True:
            try:
                seq, msg = await asyncio.wait_for(queue.get(), 60.0)
            except TimeoutError:
                if sid not in self.inner.sessions:  # expired or closed here
                    self._forget(sid)
                    return
                continue
            try:
                await self.store.append_event(sid, {"seq": seq, "msg": msg}, max_events=MAX_STORED_EVENTS, retention_ms=retention_ms)
            except StoreError as exc:
                self.cluster.count_store_error()
                log.warning("session %s: GET-stream event %d not stored: %s", sid, seq, exc)

    def _forget(self, sid: str) -> None:
        self._saved.pop(sid, None)
        self._touched.pop(sid, None)
        self._epochs.pop(sid, None)
        writer = self._writers.pop(sid, None)
        if writer is not None:
            writer[1].cancel()

    async def _replaying_get(self, request: Request) -> Response:
        """GET on a session adopted here: a Last-Event-ID of the old owner's GET stream is answered from the
        store (what followed it, under its old ids), then the live stream continues."""
        sid = request.headers.get("mcp-session-id") or ""
        epoch = self._epochs.get(sid)
        last = parse_event_id(request.headers.get("last-event-id") or "")
        if epoch is None or last is None or last[0] != "g" or last[1] >= epoch:
            return await self.inner.handle_get(request)
        try:
            stored = await self.store.events_after(sid, "0-0", limit=MAX_STORED_EVENTS) or []
        except StoreError as exc:
            self.cluster.count_store_error()
            log.warning("session %s: no replay: %s", sid, exc)
            stored = []
        missed = [(e["seq"], e["msg"]) for _, e in stored if isinstance(e.get("seq"), int) and last[1] < e["seq"] < epoch]
        scope = dict(request.scope)
        scope["headers"] = [(k, v) for k, v in request.scope["headers"] if k.lower() != b"last-event-id"]
        scope["headers"].append((b"last-event-id", f"g.{epoch}".encode()))
        live = await self.inner.handle_get(Request(scope, request.receive))
        if not isinstance(live, StreamingResponse):
            return live
        self.relayed["replayed"] += len(missed)

        async def body() -> AsyncIterator[bytes]:
            for seq, msg in missed:
                yield sse_event(msg, f"g.{seq}")
            async for chunk in live.body_iterator:
                yield chunk if isinstance(chunk, bytes) else str(chunk).encode()

        return StreamingResponse(body(), status_code=live.status_code, headers=dict(live.headers))

    def _save_soon(self, sid: str) -> None:
        """Save the session's state in the background (no answer waits on the store): one writer per session, a
        change made while it writes is written after."""
        if sid in self._saving:
            self._resave.add(sid)
            return
        self._saving.add(sid)
        self.cluster.spawn(self._saver(sid))

    async def _saver(self, sid: str) -> None:
        try:
            while True:
                self._resave.discard(sid)
                await self._save(sid)
                if sid not in self._resave:
                    return
        finally:
            self._saving.discard(sid)

    async def _save(self, sid: str) -> None:
        """Write the machine's durable state when it changed (subscribe, setLevel, ...), and push the
        store's idle deadline back at most every quarter of the idle timeout."""
        state = self._state(sid)
        if state is None:
            return
        snapshot, now = durable(state), time.monotonic()
        try:
            if snapshot != self._saved.get(sid):
                await self.store.set_session_state(sid, "machine", snapshot)
                self._saved[sid] = snapshot
            if now - self._touched.get(sid, 0.0) > self.settings.session_idle_timeout / 4:
                await self.store.session(sid, ttl_ms=self.ttl_ms)
                self._touched[sid] = now
        except StoreError as exc:
            self.cluster.count_store_error()
            log.warning("session %s: state not shared: %s", sid, exc)

    # --- routing ---------------------------------------------------------------------------------------

    async def _route(self, request: Request, body: bytes, rid: object, local: Callable[[], Awaitable[Response]],
                     relay: bool = True) -> Response:
        sid = request.headers.get("mcp-session-id")
        if sid and sid in self._adopting:
            await self._adoption(sid)
        if not sid or sid in self.inner.sessions:
            return await local()
        if not relay and request.headers.get(PROBE_HEADER):
            return Response(status_code=LEGACY_SESSION_NOT_FOUND_STATUS, headers={NOT_HERE_HEADER: self.me})
        probed = False
        if relay and not self.cluster.store_ok:  # the store failed its last heartbeat: ask the instances first
            probed, found = True, await self._probe(request, sid, body)
            if found is not None:
                return found
        try:
            for _ in range(3):  # an adoption race lost re-reads the record (bounded)
                rec = await self.store.session(sid, ttl_ms=self.ttl_ms)
                if rec is None:
                    # Unknown to the store (restarted empty, or the write was refused): its holder may be up.
                    found = await self._probe(request, sid, body) if relay and not probed else None
                    if found is not None:
                        return found
                    break  # unknown everywhere: the 2025 front's own 404
                owner = rec.get("owner") or ""
                peer = await self.cluster.locate(owner) if relay and owner and owner != self.me else None
                if peer is not None and isinstance(peer.get("url"), str):
                    relayed = await self._relay(peer["url"], request, sid, body)
                    if relayed is not None:
                        return relayed
                elif owner != self.me and not relay:
                    break  # relayed here by an instance that thinks we own it; we do not: 404
                if await self._adopt(request, sid, rec, owner):
                    break
        except StoreError as exc:
            self.cluster.count_store_error()
            found = await self._probe(request, sid, body) if relay and not probed else None
            if found is not None:
                return found
            return json_message(jsonrpc.error_response(rid, INTERNAL_ERROR, f"Internal error: {exc}", {"store": exc.store}),
                                UNAVAILABLE_STATUS)
        return await local()

    async def _probe(self, request: Request, sid: str, body: bytes) -> Response | None:
        """Ask every other instance this one knows of (the registry, else the addresses last registered), one after
        the other, to serve the request from a session it holds: the holder's answer, or None when none holds it.
        Outside a store fault's window only a few rounds a second are made (``fw.may_probe``): then such a session
        is almost always over, and a round costs every other instance a request."""
        allowed, self._probe_bucket = fw.may_probe(self._probe_bucket, time.monotonic(), self.cluster.store_fault_at)
        if not allowed:
            self.relayed["probes_skipped"] += 1
            return None
        peers = {**self.cluster.known, **self.cluster.peers}
        for name, record in peers.items():
            url = record.get("url") if isinstance(record, dict) else None
            if name == self.me or not isinstance(url, str):
                continue
            found = await self._relay(url, request, sid, body, probe=True)
            if found is not None:
                self.relayed["probed"] += 1
                log.info("session %s found on %s by asking it (the store did not say)", sid, name)
                return found
        return None

    async def _relay(self, url: str, request: Request, sid: str, body: bytes, probe: bool = False) -> Response | None:
        """Send the request to the owner; None when it cannot be reached (then it is gone), or with ``probe`` when
        it does not hold the session."""
        at_ms = str(int(time.time() * 1000))
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_HEADERS}
        headers[AT_HEADER] = at_ms
        headers[AUTH_HEADER] = _relay_mac(self._key, request.method, sid, at_ms, body)
        if probe:
            headers[PROBE_HEADER] = "1"
        http = self.cluster.http()
        # Deadline between bytes: the owner answers within the request timeout, and SSE streams carry keep-alives.
        quiet = max(self.settings.request_timeout, 4 * self.settings.sse_keepalive) + 5
        out = http.build_request(request.method, url + SESSION_PATH, headers=headers, content=body or None,
                                 timeout=httpx.Timeout(quiet, connect=2.0))
        try:
            resp = await http.send(out, stream=True)
        except httpx.HTTPError as exc:
            log.info("owner at %s unreachable: %s", url, exc)
            return None
        if probe and NOT_HERE_HEADER in resp.headers:
            await resp.aclose()
            return None
        self.relayed["out"] += 1
        passed = {k: resp.headers[k] for k in _PASS_BACK if k in resp.headers}

        async def stream() -> AsyncIterator[bytes]:
            try:
                async for chunk in resp.aiter_raw():
                    yield chunk
            except httpx.HTTPError as exc:
                log.info("relay from %s cut: %s", url, exc)
            finally:
                await resp.aclose()

        return StreamingResponse(stream(), status_code=resp.status_code, headers=passed)

    async def _adopt(self, request: Request, sid: str, rec: dict, owner: str) -> bool:
        if sid in self._adopting:  # another request got here first: its adoption serves this one too
            await self._adoption(sid)
            return sid in self.inner.sessions
        done = self._adopting[sid] = asyncio.Event()
        try:
            if not await self.store.claim_session(sid, owner, self.me):
                return False
            return await self._take(request, sid, rec, owner)
        finally:
            del self._adopting[sid]
            done.set()

    async def _adoption(self, sid: str) -> None:
        """Until this instance's adoption of ``sid`` under way ends (at most the request timeout)."""
        adopting = self._adopting.get(sid)
        if adopting is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.request_timeout):
                    await adopting.wait()

    async def _take(self, request: Request, sid: str, rec: dict, owner: str) -> bool:
        machine = rec.get("state", {}).get("machine") or rec["facts"]["machine"]
        state = ls.SessionState.from_json(machine)
        state.deadline = time.monotonic() + state.idle_timeout
        # Event ids of the new GET stream start above any the old owner used (its sequence counted events
        # since the session opened, or, if it had adopted the session too, from its own start above this clock).
        try:
            stored = await self.store.events_after(sid, "0-0", limit=MAX_STORED_EVENTS) or []
        except StoreError:
            self.cluster.count_store_error()
            stored = []
        seqs = [e["seq"] for _, e in stored if isinstance(e.get("seq"), int)]
        epoch = max([int(time.time() * 1000), *(s + 1 for s in seqs)])
        await self.inner.adopt(sid, state, call_context(request, LEGACY), first_event=epoch)
        self._epochs[sid] = epoch
        self._saved[sid], self._touched[sid] = machine, time.monotonic()
        self._keep_events(sid)
        self.relayed["adopted"] += 1
        log.info("adopted session %s from %s", sid, owner or "?")
        return True

    # --- the owner's side ------------------------------------------------------------------------------

    async def serve_relay(self, request: Request) -> Response:
        body = await bounded_body(request, self.settings.max_body_bytes)
        if not isinstance(body, bytes):
            return Response(status_code=body)
        sid = request.headers.get("mcp-session-id") or ""
        at_ms = request.headers.get(AT_HEADER, "0")
        mac = _relay_mac(self._key, request.method, sid, at_ms, body)
        if not hmac.compare_digest(request.headers.get(AUTH_HEADER, ""), mac):
            return Response(status_code=FORBIDDEN_STATUS)
        if not at_ms.isdigit() or abs(time.time() * 1000 - int(at_ms)) > FORWARD_SKEW_MS:
            return Response(status_code=BAD_REQUEST_STATUS)
        self.relayed["in"] += 1
        if request.method == "GET":
            return await self._route(request, b"", None, lambda: self._replaying_get(request), relay=False)
        if request.method == "DELETE":
            return await self._route(request, b"", None, lambda: self._local_delete(request), relay=False)
        try:
            msg = jsonrpc.parse_frame(body)
        except FrameError as exc:
            return rpc_error(exc.http_status, exc.code, exc.message, exc.id, exc.data)
        return await self._route(request, body, msg.get("id"), lambda: self._local_post(request, msg), relay=False)

    def routes(self) -> list[Route]:
        return [Route(SESSION_PATH, self.serve_relay, methods=["GET", "POST", "DELETE"])]

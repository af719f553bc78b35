"""Direction B scaled out: any instance answers any 2025 session.

The instance that ran ``initialize`` serves the session (its upstream listen, its GET stream, its
bridge->client questions); the session's facts — the pure session machine's state
(``bridge.translate.legacy_session.SessionState``, plain JSON), and which instance serves it — go to the
shared store with the idle TTL. A request for a session this instance does not hold is relayed to the
owner's internal endpoint (``/internal/session``, authenticated like ``/internal/forward``) and the
answer (JSON or SSE) streams back unchanged; so a subscribe POSTed anywhere reaches the GET stream's
holder, a client's answer to a server->client request reaches the instance that asked, and DELETE
anywhere ends the session everywhere. When the owner is gone (no registry record, refused connection),
the first instance to see the session adopts it from the stored facts (one adopter wins, atomically):
its in-flight requests and unreplayed GET events died with the owner; the session itself continues.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from bridge import jsonrpc
from bridge.config import Settings
from bridge.eras import LEGACY
from bridge.front.http import call_context, json_message, rpc_error
from bridge.front.legacy_http import LegacyHttpFront
from bridge.jsonrpc import INTERNAL_ERROR, FrameError, Message
from bridge.store.base import StoreError
from bridge.store.cluster import AUTH_HEADER, FORWARD_SKEW_MS, ClusterUpstream
from bridge.translate import legacy_session as ls

log = logging.getLogger("mcp_bridge.cluster.sessions")

SESSION_PATH = "/internal/session"
AT_HEADER = "x-mcp-bridge-at"
_HOP_HEADERS = {"host", "content-length", "connection", "transfer-encoding", "keep-alive", AUTH_HEADER, AT_HEADER}
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
        self.relayed = {"out": 0, "in": 0, "adopted": 0}

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
        return await self._route(request, b"", None, lambda: self.inner.handle_get(request))

    async def handle_delete(self, request: Request) -> Response:
        return await self._route(request, b"", None, lambda: self._local_delete(request))

    async def aclose(self) -> None:
        await self.inner.aclose()

    def status(self) -> dict:
        return {"sessions": len(self.inner.sessions), "relayed": dict(self.relayed)}

    # --- local service ---------------------------------------------------------------------------------

    async def _local_post(self, request: Request, msg: Message) -> Response:
        resp = await self.inner.handle_post(request, msg)
        sid = request.headers.get("mcp-session-id")
        if sid and sid in self.inner.sessions:
            await self._save(sid)
        return resp

    async def _local_delete(self, request: Request) -> Response:
        sid = request.headers.get("mcp-session-id") or ""
        resp = await self.inner.handle_delete(request)
        if resp.status_code < 300:
            self._saved.pop(sid, None)
            self._touched.pop(sid, None)
            try:
                await self.store.delete_session(sid)
            except StoreError as exc:
                log.warning("session %s ended here but not in the store: %s", sid, exc)
        return resp

    def _state(self, sid: str) -> ls.SessionState | None:
        slot = self.inner.sessions.get(sid)
        return slot.session.state if slot is not None and slot.session is not None else None

    async def _record(self, sid: str) -> None:
        state = self._state(sid)
        if state is None:
            return
        snapshot = durable(state)
        try:
            await self.store.create_session(sid, {"machine": snapshot}, self.ttl_ms, owner=self.me)
            self._saved[sid], self._touched[sid] = snapshot, time.monotonic()
        except StoreError as exc:
            log.warning("session %s is served by this instance only: %s", sid, exc)

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
            log.warning("session %s: state not shared: %s", sid, exc)

    # --- routing ---------------------------------------------------------------------------------------

    async def _route(self, request: Request, body: bytes, rid: object, local: Callable[[], Awaitable[Response]],
                     relay: bool = True) -> Response:
        sid = request.headers.get("mcp-session-id")
        if not sid or sid in self.inner.sessions:
            return await local()
        try:
            for _ in range(3):  # an adoption race lost re-reads the record (bounded)
                rec = await self.store.session(sid, ttl_ms=self.ttl_ms)
                if rec is None:
                    break  # unknown everywhere: the 2025 front's own 404
                owner = rec.get("owner") or ""
                peer = await self.store.instance(owner) if relay and owner and owner != self.me else None
                if peer is not None and isinstance(peer.get("url"), str):
                    relayed = await self._relay(peer["url"], request, sid, body)
                    if relayed is not None:
                        return relayed
                elif owner != self.me and not relay:
                    break  # relayed here by an instance that thinks we own it; we do not: 404
                if await self._adopt(request, sid, rec, owner):
                    break
        except StoreError as exc:
            return json_message(jsonrpc.error_response(rid, INTERNAL_ERROR, f"Internal error: {exc}", {"store": exc.store}), 503)
        return await local()

    async def _relay(self, url: str, request: Request, sid: str, body: bytes) -> Response | None:
        """Send the request to the owner; None when it cannot be reached (then it is gone)."""
        at_ms = str(int(time.time() * 1000))
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_HEADERS}
        headers[AT_HEADER] = at_ms
        headers[AUTH_HEADER] = _relay_mac(self._key, request.method, sid, at_ms, body)
        http = self.cluster.http()
        out = http.build_request(request.method, url + SESSION_PATH, headers=headers, content=body or None,
                                 timeout=httpx.Timeout(None, connect=2.0))
        try:
            resp = await http.send(out, stream=True)
        except httpx.HTTPError as exc:
            log.info("owner at %s unreachable: %s", url, exc)
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
        if not await self.store.claim_session(sid, owner, self.me):
            return False
        machine = rec.get("state", {}).get("machine") or rec["facts"]["machine"]
        state = ls.SessionState.from_json(machine)
        state.deadline = time.monotonic() + state.idle_timeout
        # Event ids of the new GET stream start above any the old owner can have used (its sequence counts
        # events since the session opened; this is the wall clock in ms).
        await self.inner.adopt(sid, state, call_context(request, LEGACY), first_event=int(time.time() * 1000))
        self._saved[sid], self._touched[sid] = machine, time.monotonic()
        self.relayed["adopted"] += 1
        log.info("adopted session %s from %s", sid, owner or "?")
        return True

    # --- the owner's side ------------------------------------------------------------------------------

    async def serve_relay(self, request: Request) -> Response:
        body = await request.body()
        sid = request.headers.get("mcp-session-id") or ""
        at_ms = request.headers.get(AT_HEADER, "0")
        mac = _relay_mac(self._key, request.method, sid, at_ms, body)
        if not hmac.compare_digest(request.headers.get(AUTH_HEADER, ""), mac):
            return Response(status_code=403)
        if not at_ms.isdigit() or abs(time.time() * 1000 - int(at_ms)) > FORWARD_SKEW_MS:
            return Response(status_code=400)
        self.relayed["in"] += 1
        if request.method == "GET":
            return await self._route(request, b"", None, lambda: self.inner.handle_get(request), relay=False)
        if request.method == "DELETE":
            return await self._route(request, b"", None, lambda: self._local_delete(request), relay=False)
        try:
            msg = jsonrpc.parse_frame(body)
        except FrameError as exc:
            return rpc_error(exc.http_status, exc.code, exc.message, exc.id, exc.data)
        return await self._route(request, body, msg.get("id"), lambda: self._local_post(request, msg), relay=False)

    def routes(self) -> list[Route]:
        return [Route(SESSION_PATH, self.serve_relay, methods=["GET", "POST", "DELETE"])]

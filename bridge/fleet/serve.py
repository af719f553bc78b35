"""``mcp-bridge serve --config FLEET``: many upstreams behind one HTTP listener.

Routes::

    /servers/<name>/mcp       the server's endpoint, for 2026-07-28 and 2025-11-25 clients
    /servers/<name>/healthz   that server's state (503 with a reason while it is down or without its store)
    /healthz                  every server's state (200 even when some are down: the bridge is up; ?strict=1: 503 then,
                              status "degraded"; store_down: servers whose shared store does not answer)
    /readyz                   200 once the config is loaded, every server made its first start attempt and every
                              scaled-out server reaches its store
    /metrics                  Prometheus text format
    /admin/reload             POST: re-read the config (as SIGHUP does)
    /admin/canary             POST {"server": NAME, "weight": W}: set a canary's weight
    /fleet                    the dashboard (HTML); /fleet/status and /fleet/divergences (JSON)

Every route checks the Host header against the allow-list (loopback names and ``[bridge] allow_host``);
/admin/* and /fleet* take loopback clients with the admin token only (``mcp_eras.bridge.fleet.guard``).

Each server has one ``HttpFront`` (with a 2025 front when available) over a ``StagedUpstream``
(shadow, canary, rollback; ``mcp_eras.bridge.layers.staged``) over one ``ManagedUpstream`` that survives reloads
(2025 clients of a 2025 Streamable HTTP server bypass them: ``passthrough``, unless the server is staged or rate-limited);
a reload only replaces what changed. A server that fails to start, dies or
hangs affects only its own route.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import signal
import sys
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from mcp_eras.bridge.cli_logs import use_json_logs
from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.fleet import admin, guard, web
from mcp_eras.bridge.fleet import config as fc
from mcp_eras.bridge.fleet.history import EraHistory
from mcp_eras.bridge.fleet.metrics import Metrics
from mcp_eras.bridge.fleet.passthrough import Passthrough, classify_post, read_post
from mcp_eras.bridge.fleet.scale import FleetScale, resolve
from mcp_eras.bridge.front import server_card
from mcp_eras.bridge.front.http import HttpFront, LegacyFrontProtocol, rpc_error
from mcp_eras.bridge.gateway.audit import AuditLog
from mcp_eras.bridge.layers import staged as stage
from mcp_eras.bridge.layers.managed import ManagedUpstream, register_metrics
from mcp_eras.bridge.layers.observe import cluster_metrics, fleet_health_status, fleet_readyz
from mcp_eras.bridge.layers.policy import GatewayUpstream
from mcp_eras.bridge.layers.ratelimit import RateLimitedUpstream
from mcp_eras.bridge.store.open import open_store
from mcp_eras.bridge.translate import eras
from mcp_eras.bridge.translate import outcomes as oc
from mcp_eras.bridge.translate.gateway import resource
from mcp_eras.bridge.translate.jsonrpc import INVALID_REQUEST

if TYPE_CHECKING:
    from mcp_eras.bridge.front.legacy_http import LegacyHttpFront
    from mcp_eras.bridge.layers.cluster import ClusterUpstream
    from mcp_eras.bridge.scaleout.sessions import ClusterLegacyFront

log = logging.getLogger("mcp_bridge.fleet")


def legacy_front_factory() -> Any:
    """``LegacyHttpFront`` when the 2025 front is available in this build, else None (2026 clients only)."""
    try:
        from mcp_eras.bridge.front.legacy import LegacyHttpFront
    except ImportError as exc:  # pragma: no cover - depends on the build
        log.warning("2025 front unavailable (%s): serving 2026-07-28 clients only", exc)
        return None
    return LegacyHttpFront


@dataclass
class Entry:
    name: str
    fingerprint: str
    front: HttpFront
    upstream: ManagedUpstream
    staged: stage.StagedUpstream
    legacy: LegacyFrontProtocol | None
    """What the front hands 2025 clients to: ``own_legacy``, or scaled out ``relay``."""
    started: asyncio.Task[None] | None = None
    cluster: ClusterUpstream | None = None
    """Scaled out (``[bridge] state_store``): the ``ClusterUpstream`` the front calls."""
    own_legacy: LegacyHttpFront | None = None
    """The server's 2025 front (None when the server serves 2026 clients only)."""
    relay: ClusterLegacyFront | None = None
    """Scaled out: ``own_legacy`` over the shared store (sessions relayed to, or adopted from, other instances)."""
    limited: RateLimitedUpstream | None = None
    """The server's rate limit (``rate``, ``burst``) over ``staged``; a reload changes it in place."""
    gated: GatewayUpstream | None = None
    """The server's tool policy, caller and audit (``mcp_eras.bridge.layers.policy``) over ``limited``; a reload changes it
    in place."""

    @property
    def bypass_allowed(self) -> bool:
        """Whether 2025 clients may pass through untranslated: nothing of the gateway layer to apply, and no credential
        of the bridge's own that the passthrough would not carry."""
        return (self.gated is None or not self.gated.active) and self.upstream.slot.target.auth is None


class Router:
    """``name -> Entry``; replaced entries are swapped in one assignment (the event loop is the lock)."""

    def __init__(self, path: str | Path, metrics: Metrics | None = None, scale: FleetScale | None = None,
                 base_url: str = "") -> None:
        self.path = Path(path)
        self.scale = scale
        self.base_url = base_url
        """Where the other instances reach this one (``advertise_url``, else the listen address)."""
        self.metrics = metrics or Metrics()
        register_metrics(self.metrics)
        stage.register_metrics(self.metrics)
        self.history = EraHistory()
        self.divergences: deque[Any] = deque(maxlen=stage.DIVERGENCES_KEPT)
        self.admin_token: str | None = None
        self.entries: dict[str, Entry] = {}
        self.config: fc.FleetConfig | None = None
        self.loaded_at: float | None = None
        self._reload_lock = asyncio.Lock()
        self._closing: set[asyncio.Task[None]] = set()
        self._legacy_cls = legacy_front_factory()
        self._passthrough: Passthrough | None = None
        self.passthrough_enabled = True
        self.protected: bool | None = None
        """Whether the app serving this router was built with ``[auth]`` (None: no app yet); a reload cannot change it."""
        self.resource_guard: Any = None
        """The app's resource-server guard (``gateway.guard.ResourceGuard``), which a reload's ``[auth]`` reconfigures."""

    # --- building -----------------------------------------------------------------------------------

    def _settings(self, cfg: fc.FleetConfig, server: fc.ServerConfig) -> Settings:
        settings = fc.server_settings(cfg.bridge, server)
        return self.scale.settings(settings) if self.scale is not None else settings

    def _entry(self, name: str, cfg: fc.FleetConfig, server: fc.ServerConfig) -> Entry:
        settings = self._settings(cfg, server)
        target = fc.server_target(name, server, base_dir=self.path.parent)
        upstream = ManagedUpstream(name, target, settings, self.metrics, drain_timeout=cfg.bridge.drain_timeout)
        upstream.history = self.history
        staged = stage.StagedUpstream(name, upstream, self._peer, self.metrics, self.divergences)
        staged.configure(stage.StageConfig.of(server))
        # buckets per (principal, server); scaled out, in the shared store under this server's prefix
        buckets = open_store(settings.state_store, self.scale.prefix(name) if self.scale is not None else "mcp-bridge")
        limited = RateLimitedUpstream(staged, buckets, server.rate_limit(), self.metrics, name,
                                      request_timeout=settings.request_timeout)
        gated = GatewayUpstream(limited, name, server.tool_policy(), _audit(cfg, server))
        legacy = self._legacy_cls(gated, settings) if self._legacy_cls is not None and settings.front_era != "2026-07-28" else None
        if self.scale is None:
            return Entry(name, fc.fingerprint(cfg.bridge, server), HttpFront(settings, gated, legacy), upstream, staged, legacy,
                         own_legacy=legacy, limited=limited, gated=gated)
        from mcp_eras.bridge.scaleout.tasks import attach_found
        from mcp_eras.bridge.scaleout.wiring import scale_out

        cluster, relay, _routes = scale_out(gated, legacy, settings, f"{self.base_url}/servers/{name}", self.scale.prefix(name))
        # each upstream generation's task records go to the shared store
        upstream.on_delegate = functools.partial(attach_found, cluster=cluster)
        front = HttpFront(settings, cluster, relay)
        front.param_headers = cluster.param_headers
        return Entry(name, fc.fingerprint(cfg.bridge, server), front, upstream, staged, relay, cluster=cluster,
                     own_legacy=legacy, relay=relay, limited=limited, gated=gated)

    def _peer(self, name: str) -> ManagedUpstream | None:
        """Another server's upstream, for a shadow or canary (None when it is not configured now)."""
        entry = self.entries.get(name)
        return entry.upstream if entry is not None else None

    def allowed_hosts(self) -> list[str]:
        return list(self.config.bridge.allow_host) if self.config is not None else []

    def allowed_origins(self) -> list[str]:
        return list(self.config.bridge.allow_origin) if self.config is not None else []

    @staticmethod
    def log_event(msg: str, *args: Any, extra: dict[str, Any]) -> None:
        log.info(msg, *args, extra=extra)

    def _start(self, entry: Entry) -> None:
        async def run() -> None:
            try:
                await (entry.cluster or entry.upstream).start()
                log.info("server %s started", entry.name, extra={"event": "started", "server": entry.name, "era": entry.upstream.era})
            except Exception as exc:  # noqa: BLE001 - one server failing never affects the others
                entry.upstream.last_error = str(exc) or exc.__class__.__name__
                log.error("server %s did not start: %s", entry.name, exc, extra={"event": "start_failed", "server": entry.name})

        entry.started = asyncio.create_task(run())

    async def load(self) -> dict[str, list[str]]:
        """First load, or a reload: returns what changed. A bad config changes nothing and raises ConfigError."""
        async with self._reload_lock:
            cfg = fc.load(self.path)
            if self.protected is not None and self.protected != (cfg.auth is not None):
                raise fc.ConfigError("[auth] cannot be " + ("removed" if self.protected else "added")
                                     + " by a reload (whether the fleet requires sign-in is fixed at start): restart the fleet")
            wanted = cfg.enabled()
            # Resolve every target before touching anything, so a bad secret reference changes nothing.
            for name, server in wanted.items():
                fc.server_target(name, server, base_dir=self.path.parent)
            changes: dict[str, list[str]] = {"added": [], "replaced": [], "removed": [], "unchanged": [], "staged": []}
            for name in list(self.entries):
                if name not in wanted:
                    entry = self.entries.pop(name)
                    changes["removed"].append(name)
                    self._close_later(entry)
            for name, server in wanted.items():
                fp = fc.fingerprint(cfg.bridge, server)
                current = self.entries.get(name)
                if current is None:
                    entry = self._entry(name, cfg, server)
                    self.entries[name] = entry
                    changes["added"].append(name)
                    self._start(entry)
                elif current.fingerprint != fp:
                    settings = self._settings(cfg, server)
                    target = fc.server_target(name, server, base_dir=self.path.parent)
                    current.upstream.drain_timeout = cfg.bridge.drain_timeout
                    current.upstream.replace(target, settings)
                    current.front.settings = settings
                    for front in (current.own_legacy, current.relay):
                        if front is not None:
                            front.settings = settings
                    current.fingerprint = fp
                    changes["replaced"].append(name)
                    self._start(current)
                else:
                    changes["unchanged"].append(name)
                staged = self.entries[name].staged
                before = staged.stage.cfg if staged.stage is not None else None
                staged.configure(stage.StageConfig.of(server))
                if self.entries[name].limited is not None:
                    self.entries[name].limited.configure(server.rate_limit())  # type: ignore[union-attr]
                if self.entries[name].gated is not None:
                    self.entries[name].gated.configure(server.tool_policy(), _audit(cfg, server))  # type: ignore[union-attr]
                if (staged.stage.cfg if staged.stage is not None else None) != before and current is not None:
                    changes["staged"].append(name)
                self.entries[name].front.resource_metadata = (
                    resource.metadata_url(resource.fleet_resource(cfg.auth.audience, name)) if cfg.auth is not None else None)
            changed = self._reauth(cfg.auth)
            if changed:
                changes["auth"] = changed
            self.config = cfg
            self.admin_token = admin.server_token(self.path, cfg.bridge, self.admin_token)
            self.loaded_at = time.time()
            return changes

    def _reauth(self, auth: fc.AuthTable | None) -> list[str]:
        """A reload's ``[auth]`` applied to the running guard: the ``[auth]`` keys that changed (none on the first load)."""
        before = self.config.auth if self.config is not None else None
        if before is None or auth is None or before == auth:
            return []
        changed = [key for key in fc.AuthTable.model_fields if getattr(before, key) != getattr(auth, key)]
        if self.resource_guard is not None:
            from mcp_eras.bridge.gateway.guard import fleet_config

            self.resource_guard.reconfigure_fleet(fleet_config(auth))
        log.info("[auth] changed on reload: %s", ", ".join(changed), extra={"event": "auth_reloaded", "changed": changed})
        return changed

    async def reload(self) -> dict[str, Any]:
        try:
            changes = await self.load()
        except fc.ConfigError as exc:
            self.metrics.inc("reloads_total", {"outcome": "error"})
            log.error("reload rejected, keeping the running config: %s", exc, extra={"event": "reload_rejected"})
            return {"ok": False, "error": str(exc)}
        self.metrics.inc("reloads_total", {"outcome": "ok"})
        log.info("reloaded %s", self.path, extra={"event": "reloaded", **changes})
        return {"ok": True, **changes}

    def _close_later(self, entry: Entry) -> None:
        entry.front.drain()  # a removed server's listens end with their completion, not with the upstream's close

        async def close() -> None:
            if entry.cluster is not None:
                await entry.cluster.close_cluster()
            await entry.staged.aclose()
            if entry.limited is not None:
                await entry.limited.store.aclose()
            await entry.upstream.aclose()
            if entry.legacy is not None:
                with contextlib.suppress(Exception):
                    await entry.legacy.aclose()

        task = asyncio.create_task(close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def drain(self) -> None:
        """The bridge is stopping: every server's listen streams end with their completion (``HttpFront.drain``)."""
        for entry in self.entries.values():
            entry.front.drain()

    async def aclose(self) -> None:
        entries, self.entries = list(self.entries.values()), {}
        for entry in entries:
            if entry.started is not None and not entry.started.done():
                entry.started.cancel()
        for entry in entries:
            self._close_later(entry)
        await asyncio.gather(*list(self._closing), return_exceptions=True)
        if self._passthrough is not None:
            await self._passthrough.client.aclose()

    # --- observability ------------------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        servers = {name: e.upstream.status() for name, e in sorted(self.entries.items())}
        for name, e in self.entries.items():
            servers[name]["pids"] = e.upstream.pids()
            servers[name]["requests_by_client_era"] = {
                era: int(n) for era, n in sorted(self.metrics.totals("requests_total", "client_era", server=name).items())}
            if e.cluster is not None:
                servers[name]["cluster"] = e.cluster.cluster_status()
        return {"status": "ok", "config": str(self.path), "loaded_at": self.loaded_at, "servers": servers}

    def render_metrics(self) -> str:
        up, era, restarts, parked, inflight, streams, draining, gen, weight = [], [], [], [], [], [], [], [], []
        for name, e in sorted(self.entries.items()):
            st = e.upstream.status()
            if e.staged.stage is not None and e.staged.stage.cfg.canary_to is not None:
                weight.append(({"server": name, "canary": e.staged.stage.cfg.canary_to}, e.staged.stage.weight))
            up.append(({"server": name}, 1.0 if st["state"] == "ok" else 0.0))
            if st["era"]:
                era.append(({"server": name, "era": st["era"]}, 1.0))
            restarts.append(({"server": name}, float(st["restarts"])))
            parked.append(({"server": name}, float(st["parked"])))
            inflight.append(({"server": name}, float(st["inflight"])))
            streams.append(({"server": name}, float(st["streams"])))
            draining.append(({"server": name}, float(len(st["draining"]))))
            gen.append(({"server": name}, float(st["generation"])))
        clusters = {name: e.cluster for name, e in sorted(self.entries.items()) if e.cluster is not None}
        return self.metrics.render([
            ("upstream_up", "gauge", "1 when the server's upstream is started and its last call did not fail.", up),
            ("upstream_era", "gauge", "The era each server speaks (1 for the detected era).", era),
            ("upstream_restarts_total", "counter", "Upstream process respawns and lost sessions.", restarts),
            ("parked_calls", "gauge", "MRTR calls parked waiting for client input.", parked),
            ("inflight_calls", "gauge", "Calls in flight on the current generation.", inflight),
            ("listen_streams", "gauge", "Open subscriptions/listen streams.", streams),
            ("draining_generations", "gauge", "Replaced upstreams still finishing their calls.", draining),
            ("upstream_generation", "gauge", "How many times the server's upstream was (re)built.", gen),
            ("canary_weight", "gauge", "The share of callers a canary takes now (0 after a rollback).", weight),
            *cluster_metrics(clusters),
        ])

    # --- HTTP ---------------------------------------------------------------------------------------

    async def endpoint(self, request: Request) -> Response:
        entry = self.entries.get(request.path_params["name"])
        if entry is None:
            return rpc_error(HTTPStatus.NOT_FOUND, INVALID_REQUEST, f"Not Found: no server named {request.path_params['name']!r}")
        token = stage.bind_session(request.headers.get("mcp-session-id"))
        try:
            if (not self.passthrough_enabled or entry.front.settings.front_era == eras.MODERN or entry.legacy is None
                    or entry.staged.stage is not None or (entry.limited is not None and entry.limited.limit is not None)
                    or not entry.bypass_allowed):
                return await entry.front.endpoint(request)
            return await self._same_era_or_front(entry, request)
        finally:
            stage.unbind_session(token)

    async def _same_era_or_front(self, entry: Entry, request: Request) -> Response:
        """2025 clients of a 2025 Streamable HTTP server pass through untranslated; the rest go to the fronts."""
        body: bytes | None = None
        if request.method == "POST":
            if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
                return await entry.front.endpoint(request)
            read = await read_post(request, entry.front.settings)
            if isinstance(read, Response):
                return read
            body = read
            request = _replayed(request, body)
            msg, _ = classify_post(body)
            if not isinstance(msg, dict) or not entry.front.is_legacy(request.headers, msg):
                return await entry.front.endpoint(request)
        elif request.method not in ("GET", "DELETE"):
            return await entry.front.endpoint(request)
        url = await entry.upstream.legacy_http_url()
        if url is None:
            return await entry.front.endpoint(request)
        if self._passthrough is None:
            self._passthrough = Passthrough(httpx.AsyncClient(limits=httpx.Limits(max_connections=512, max_keepalive_connections=64)))
        return await self._passthrough.forward(request, body, url, entry.upstream, entry.front.settings,
                                               dict(entry.upstream.slot.target.headers))

    async def internal(self, request: Request) -> Response:
        """A server's internal endpoints between scaled-out instances (``/internal/forward`` and
        ``/internal/session`` under ``/servers/<name>``; each authenticates its caller by HMAC)."""
        entry = self.entries.get(request.path_params["name"])
        kind = request.path_params["kind"]
        if entry is None or entry.cluster is None:
            return Response(status_code=HTTPStatus.NOT_FOUND)
        if kind == "forward" and request.method == "POST":
            return await entry.cluster.serve_forward(request)
        if kind == "session" and entry.relay is not None:
            return await entry.relay.serve_relay(request)
        return Response(status_code=HTTPStatus.NOT_FOUND)

    async def server_health(self, request: Request) -> Response:
        entry = self.entries.get(request.path_params["name"])
        if entry is None:
            return JSONResponse({"error": "no such server"}, status_code=HTTPStatus.NOT_FOUND)
        status = {**entry.upstream.status(), "pids": entry.upstream.pids()}
        if entry.cluster is not None:
            status["cluster"] = entry.cluster.cluster_status()
        body, code = oc.server_health(status)
        return JSONResponse(body, status_code=code)

    async def healthz(self, request: Request) -> Response:
        body = self.health()
        return JSONResponse(body, status_code=fleet_health_status(body, request.query_params.get("strict") in ("1", "true")))

    async def metrics_endpoint(self, request: Request) -> Response:
        return PlainTextResponse(self.render_metrics(), media_type="text/plain; version=0.0.4; charset=utf-8")

    async def admin_reload(self, request: Request) -> Response:
        denied = guard.admin_denied(request, self.admin_token, self.allowed_origins())
        if denied is not None:
            return denied
        result = await self.reload()
        return JSONResponse(result, status_code=HTTPStatus.OK if result["ok"] else HTTPStatus.UNPROCESSABLE_ENTITY)


def _audit(cfg: fc.FleetConfig, server: fc.ServerConfig) -> AuditLog | None:
    """A server's audit log: asked for, or implied by a protected fleet or a tool policy."""
    wanted = server.audit or server.audit_arguments or cfg.auth is not None or server.tool_policy().active
    return AuditLog(with_arguments=server.audit_arguments) if wanted else None


def _replayed(request: Request, body: bytes) -> Request:
    """The same request with its (already read) body readable again; later receives go to the client."""
    sent = False

    async def receive() -> Any:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await request.receive()

    return Request(request.scope, receive)


def _bound(handler: Any, router: Router) -> Any:
    async def endpoint(request: Request) -> Response:
        return await handler(router, request)

    return endpoint


def build_fleet_app(router: Router, auth: fc.AuthTable | None = None) -> Starlette:
    """``auth``: the config's ``[auth]`` table at start: every ``/servers/NAME/mcp`` then requires an access token for it
    (mcp_eras.bridge.gateway.guard), and no 2025 request passes through untranslated (its ``Authorization`` would
    reach the upstream). A reload applies a changed table (``Router._reauth``) but cannot add or remove it."""
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await router.load()
        loop = asyncio.get_running_loop()
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGHUP, lambda: asyncio.ensure_future(router.reload()))
        try:
            yield
        finally:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signal.SIGHUP)
            await router.aclose()

    routes = [
        Route("/servers/{name}/mcp", router.endpoint, methods=["GET", "POST", "DELETE", "PUT", "PATCH"]),
        Route("/servers/{name}/healthz", router.server_health, methods=["GET"]),
        Route("/servers/{name}/internal/{kind}", router.internal, methods=["GET", "POST", "DELETE"]),
        Route("/healthz", router.healthz, methods=["GET"]),
        Route("/readyz", functools.partial(fleet_readyz, router), methods=["GET"]),
        Route("/metrics", router.metrics_endpoint, methods=["GET"]),
        Route("/admin/reload", router.admin_reload, methods=["POST"]),
        *server_card.fleet_routes(router),  # each server's Server Card, one AI Catalog (front/server_card.py)
        *(Route(path, _bound(handler, router), methods=[method]) for path, handler, method in web.ROUTES),
    ]
    middleware = [Middleware(guard.HostGuard, allowed=router.allowed_hosts)]
    if auth is not None:
        from mcp_eras.bridge.gateway.guard import fleet_config, fleet_middleware

        router.passthrough_enabled = False

        def built(gate: Any) -> None:
            router.resource_guard = gate

        middleware.append(fleet_middleware(fleet_config(auth), router.metrics, lambda name: name in router.entries, built))
    router.protected = auth is not None
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    app.state.router = router
    app.state.drain = router.drain  # listens end with their completion when the bridge stops (clikit.run_asgi)
    return app


def serve_fleet(config_path: str, host: str | None = None, port: int | None = None, log_format: str = "json",
                scale_options: dict[str, Any] | None = None) -> None:
    """Serve the fleet; ``host``/``port`` from ``serve --listen``, else the config's ``[bridge] listen``,
    else 127.0.0.1:8808. ``scale_options``: the serve options ``state_store``, ``state_key``,
    ``instance_id``, ``advertise_url`` given on the command line (or their variables)."""
    from mcp_eras.bridge import clikit

    if log_format == "json":
        use_json_logs()
    try:  # fail fast, before binding, with the line-aware message
        cfg = fc.load(config_path)
        for name, server in cfg.enabled().items():
            fc.server_target(name, server, base_dir=Path(config_path).parent)
        scale = resolve(cfg.bridge, scale_options)
    except fc.ConfigError as exc:
        print(f"mcp-bridge: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if host is None or port is None:
        listen = cfg.bridge.listen or "127.0.0.1:8808"
        bind, _, port_text = listen.rpartition(":")
        host, port = (bind.strip("[]") or "127.0.0.1"), int(port_text)
    router = Router(config_path, scale=scale, base_url=scale.base_url(host, port) if scale is not None else "")
    app = build_fleet_app(router, cfg.auth)

    def announce(host: str, port: int) -> None:  # after the bind succeeded
        log.info("mcp-bridge fleet listening on http://%s:%d/servers/<name>/mcp (servers: %s)", host, port,
                 ", ".join(sorted(cfg.enabled())) or "none",
                 extra={"event": "listening", "host": host, "port": port, "config": config_path, "servers": sorted(cfg.enabled())})

    clikit.run_asgi(app, host, port, announce)

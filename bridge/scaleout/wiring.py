"""Wiring of a scaled-out instance (``--state-store redis://...``) around the shells the CLI builds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.routing import Route

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.core import Upstream
from mcp_eras.bridge.front.http import build_app
from mcp_eras.bridge.layers.cluster import ClusterUpstream
from mcp_eras.bridge.scaleout import listens
from mcp_eras.bridge.scaleout.tasks import attach_found
from mcp_eras.bridge.store.open import open_store

if TYPE_CHECKING:
    from mcp_eras.bridge.front.legacy_http import LegacyHttpFront
    from mcp_eras.bridge.scaleout.sessions import ClusterLegacyFront


def scaled_app(settings: Settings, upstream: Upstream, legacy: LegacyHttpFront | None, listen_url: str) -> Starlette:
    """``build_app`` for an instance sharing ``settings.state_store``: the wrapped upstream and 2025 front,
    the internal routes, and the 2026 front's ``Mcp-Param-*`` knowledge shared."""
    cluster, relay, routes = scale_out(upstream, legacy, settings, listen_url)
    app = build_app(settings, cluster, relay, extra_routes=routes)
    app.state.front.param_headers = cluster.param_headers
    return app


def scale_out(upstream: Upstream, legacy: LegacyHttpFront | None, settings: Settings, listen_url: str,
              prefix: str = "mcp-bridge") -> tuple[ClusterUpstream, ClusterLegacyFront | None, list[Route]]:
    """Wrap the upstream (direction A forwarding, registry, tasks) and the 2025 front (direction B relay and
    adoption); returns them and the internal routes to serve next to ``/mcp``. ``prefix`` names this
    upstream's keys in the store (a fleet gives each server its own)."""
    cluster = ClusterUpstream(upstream, settings, open_store(settings.state_store, prefix), settings.advertise_url or listen_url)
    attach_found(upstream, cluster)
    routes = cluster.routes()
    relay = None
    if legacy is not None:
        from mcp_eras.bridge.scaleout.sessions import ClusterLegacyFront  # (only where the 2025 front is built)

        relay = ClusterLegacyFront(legacy, cluster, settings)
        cluster.extra_status = relay.status
        if cluster.store.shared:  # one upstream listen per share key across the instances
            shared = listens.attach(legacy.listens, cluster.store, cluster.instance_id, settings.heartbeat_interval,
                                    cluster.count_store_error, lambda: cluster.store_ok)
            cluster.extra_status = lambda: {**relay.status(), "listens": shared.status()}
        routes += relay.routes()
    return cluster, relay, routes

"""Wiring of a scaled-out instance (``--state-store redis://...``) around the shells the CLI builds."""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from bridge.config import Settings
from bridge.core import Upstream
from bridge.store import open_store
from bridge.store.cluster import ClusterUpstream


def scale_out(upstream: Upstream, legacy: Any, settings: Settings, listen_url: str) -> tuple[Upstream, Any, list[Route]]:
    """Wrap the upstream (direction A forwarding, registry) and the 2025 front (direction B relay and
    adoption); returns them and the internal routes to serve next to ``/mcp``."""
    cluster = ClusterUpstream(upstream, settings, open_store(settings.state_store), settings.advertise_url or listen_url)
    routes = cluster.routes()
    if legacy is not None:
        from bridge.store.sessions import ClusterLegacyFront

        legacy = ClusterLegacyFront(legacy, cluster, settings)
        cluster.extra_status = legacy.status
        routes += legacy.routes()
    return cluster, legacy, routes

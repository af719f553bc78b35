"""A fleet server's delegate generations, pure: when the era verdict of an auto-probed server is stale or worth
checking again, when a new verdict replaces the delegate, when a 2025 client may pass through to a 2025 HTTP server
untranslated, and what the fleet reads of a delegate's status.

The shell (``mcp_eras.bridge.layers.managed``) probes, builds, drains and closes the delegates; it reads the clock
and passes the times in.
"""

from __future__ import annotations

from typing import Any

from mcp_eras.bridge.translate import eras

REPROBE_MIN_INTERVAL = 5.0
"""Seconds between two re-probes an era-typical failure may start (a stale verdict or an unreachable delegate
re-probes at once)."""
PASSTHROUGH_TRANSPORTS = ("streamable-http", "auto")
"""The transports of a 2025 HTTP server that a 2025 client's own session can reach directly."""


def era_stale(probed: bool, probed_at: float, now: float, ttl: float) -> bool:
    """Whether a probed era verdict has outlived its cache time (``era_cache_ttl``)."""
    return probed and now - probed_at > ttl


def may_reprobe(auto: bool, built: bool, closed: bool, running: bool) -> bool:
    """Whether a re-probe may start at all: only for an ``auto`` era whose delegate exists, while the server is
    open and no re-probe is under way."""
    return auto and built and not closed and not running


def reprobe_due(force: bool, now: float, last: float, min_interval: float = REPROBE_MIN_INTERVAL) -> bool:
    """A forced re-probe starts at once; one hinted by an era-typical failure at most every ``min_interval``."""
    return force or now - last >= min_interval


def verdict_changed(current: str | None, probed: str, transports: tuple[str | None, str | None] | None) -> bool:
    """Whether a re-probe's verdict needs a new delegate: another era, or for an HTTP server probed before
    (``transports``: the earlier and the new transport; None otherwise) another transport (e.g. a server that moved
    from HTTP+SSE to Streamable HTTP)."""
    return probed != current or (transports is not None and transports[0] != transports[1])


def passthrough_url(url: str | None, era: str, probed_transport: str | None, configured_transport: str | None) -> str | None:
    """The URL a 2025 client's session may be passed to untranslated: a 2025 Streamable HTTP server's, else None."""
    if not url or era != eras.LEGACY:
        return None
    transport = probed_transport if probed_transport is not None else configured_transport
    return url if transport in PASSTHROUGH_TRANSPORTS else None


def restarts_of(status: dict[str, Any]) -> int:
    """The restarts a delegate's status counts (0 when it names none)."""
    value = status.get("restarts", 0)
    return int(value) if isinstance(value, (int, float)) else 0


def parked_of(status: dict[str, Any]) -> int:
    """The parked calls a delegate's status counts."""
    return int(status.get("parked", 0) or 0)


def pids_of(status: dict[str, Any]) -> list[int]:
    """The process ids of a delegate's stdio children, from its status (each transport's, then its own)."""
    pids = [t.get("pid") for t in status.get("transports", []) if isinstance(t, dict)]
    pids.append(status.get("pid"))
    return [p for p in pids if isinstance(p, int)]

"""Bridge settings (pydantic). One object is built by the CLI (or the fleet config) and handed to fronts
and upstreams; nothing reads the environment behind its back."""

from __future__ import annotations

import secrets
from typing import Literal

from pydantic import BaseModel, Field

from mcp_eras.bridge.translate.eras import EraSetting


class Settings(BaseModel):
    """Security, limits and translation policy shared by every front and upstream."""

    # --- front ---------------------------------------------------------------------------------
    front_era: EraSetting = "auto"
    """Which client era the front serves: one of them, or both (classified per request / first frame)."""
    allowed_origins: list[str] = Field(default_factory=list)
    """Origins accepted besides loopback ones (http://localhost:*, http://127.0.0.1:*, http://[::1]:*)."""
    allowed_hosts: list[str] = Field(default_factory=list)
    """Host header values accepted besides loopback names (localhost, 127.0.0.1, [::1]); "*" accepts any.
    A bridge served on another name or address must list it (DNS-rebinding defence)."""
    max_body_bytes: int = 4 * 1024 * 1024
    max_line_bytes: int = 16 * 1024 * 1024
    request_timeout: float = 300.0
    """Upper bound on one upstream call (seconds)."""
    session_idle_timeout: float = 1800.0
    """Legacy front: a 2025 session unused this long is expired (the client gets 404 and re-initializes)."""
    legacy_sessions_max: int = 10_000
    """Legacy front: 2025 sessions open at once; past it ``initialize`` gets 503 naming the limit."""
    legacy_sessions_per_principal: int = 1_000
    """Legacy front: 2025 sessions one set of credentials may hold; past it 429 naming the limit."""
    legacy_listens_max: int = 512
    """Legacy front: upstream ``subscriptions/listen`` streams held for 2025 sessions; at the cap a lingering one
    (no GET stream, nothing subscribed) is reclaimed, else a subscribe gets an error naming the limit."""
    legacy_listen_linger: float = 300.0
    """Legacy front: a session's listen stays open this long after initialize and after its last GET stream left, so
    a client that reconnects (Last-Event-ID) still gets what changed meanwhile; then only subscriptions keep it."""
    sse_keepalive: float = 15.0
    header_timeout: float = 10.0
    """HTTP fronts: seconds a client has to send a complete request head (bridge.front.h11_guard)."""
    upstream_keepalive_expiry: float = 2.0
    """Idle upstream HTTP connections are dropped after this long: shorter than the usual server side (uvicorn
    and Node close idle keep-alive connections after 5 s), so the bridge never writes a request into a
    connection the server is closing at that moment (a ReadError under load)."""
    event_retention: float = 300.0
    """Legacy front: how long GET-stream events stay replayable for Last-Event-ID."""
    mrtr_max_rounds: int = 16

    # --- front as an OAuth resource server (mcp_eras.bridge.gateway) --------------------------------
    auth_issuer: str | None = None
    """The authorization server whose access tokens the HTTP front requires (None: no sign-in, transparent mode)."""
    auth_audience: str | None = None
    """This endpoint's public URL: the ``aud`` its tokens must name and the ``resource`` of its metadata."""
    auth_required_scopes: list[str] = Field(default_factory=list)
    auth_introspection_url: str | None = None
    """RFC 7662 endpoint for opaque tokens (client credentials from MCP_BRIDGE_AUTH_CLIENT_ID / _SECRET)."""
    auth_clock_skew: int = 60
    """Seconds of leeway on a token's ``exp``/``nbf`` (``--auth-clock-skew``, 0 to 300; the fleet's ``[auth] clock_skew``)."""

    # --- upstream --------------------------------------------------------------------------------
    upstream_era: EraSetting = "auto"
    probe_timeout: float = 5.0
    """How long the era probe waits for the answer to ``server/discover``, counted from the server's readiness."""
    probe_start_timeout: float = 30.0
    """stdio: how long a child may stay silent while it loads (no output at all) before the probe counts it as
    not answering; its first output on stdout or stderr marks it ready."""
    era_cache_ttl: float = 300.0
    connect_timeout: float = 10.0
    respawn_backoff_initial: float = 0.1
    respawn_backoff_max: float = 10.0
    pool_max_sessions: int = 64
    """Legacy upstream: initialized sessions (for stdio: children) per upstream. Idle ones are closed to make
    room; with none idle, a new identity gets the named limit error (-32000, ``data.limit``, HTTP 503)."""
    pool_per_identity: int = 8
    """Legacy upstream: sessions one identity may hold (its input-capable calls run one per session)."""
    pool_idle_timeout: float = 600.0
    """Legacy upstream: a session without calls, parked calls or subscriptions this long is closed."""
    pool_departed_timeout: float = 30.0
    """Legacy upstream: an idle session other than the most recently used one (for stdio: a child kept for a client
    identity whose callers have left) is closed this long after its last use (at most ``pool_idle_timeout``)."""
    share_child: bool = False
    """Legacy upstream: every caller shares one session (for stdio: one child), whatever its identity; for servers
    that must run once. Input-capable calls take turns; a server request no call can be named for is declined."""
    session_start_settle: float = 0.25
    """Legacy upstream: a call that waited for its client's answers to what a new session's server asked at once
    (``roots/list`` after ``initialized``) goes upstream this long after them, so the server has applied them."""
    parked_per_identity: int = 64
    parked_total: int = 1024
    """MRTR parked calls kept per identity / per upstream; beyond, the oldest is released (its upstream
    request answered as on expiry)."""

    tasks_per_principal: int = 64
    """Tasks: unfinished tasks one principal may have (both directions); past it the limit error."""
    tasks_max: int = 10_000
    """Tasks: task records one instance holds (expired ones are swept at the cap, then the limit error). One
    principal keeps at most 4x ``tasks_per_principal`` records: its oldest finished ones are forgotten first."""
    task_sessions_max: int = 64
    """Direction A tasks: dedicated 2025 task sessions (stdio: children) in all; idle ones are closed to make room."""
    task_sessions_per_principal: int = 8
    """Direction A tasks: task sessions one principal may hold (one per set of input capabilities it declares)."""

    # --- translation policy ----------------------------------------------------------------------
    ttl_ms: int = 0
    """ttlMs stamped on cacheable results from a legacy upstream (legacy servers give no hint)."""
    cache_scope: Literal["public", "private"] = "private"
    discover_ttl_ms: int = 60_000
    stamp_server_info: bool = True

    # --- requestState sealing (MRTR) ---------------------------------------------------------------
    state_key: bytes = Field(default_factory=lambda: secrets.token_bytes(32))
    """HMAC key for requestState; a random key per process unless configured."""
    state_ttl: float = 600.0
    parked_timeout: float = 600.0
    instance_id: str = Field(default_factory=lambda: secrets.token_hex(6))

    # --- scale-out (mcp_eras.bridge.store) ------------------------------------------------------------------
    state_store: str = "memory"
    """``memory`` (one process) or ``redis://HOST:PORT/DB`` shared by every instance (then ``state_key``
    must be configured: it seals requestState and authenticates forwarding between instances)."""
    advertise_url: str | None = None
    """Base URL other instances use to reach this one (default: the listen address)."""
    heartbeat_interval: float = 1.0
    """Seconds between registry heartbeats; an instance is gone 3 intervals after its last one."""

    # --- identity of the bridge itself -----------------------------------------------------------
    bridge_name: str = "mcp-bridge"
    bridge_version: str = "0.1.0"

    def bridge_info(self) -> dict[str, str]:
        return {"name": self.bridge_name, "version": self.bridge_version}

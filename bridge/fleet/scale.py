"""Fleet mode scaled out: several fleet instances behind a load balancer, sharing one Redis.

``[bridge]`` takes ``state_store``, ``state_key``, ``instance_id`` and ``advertise_url`` (the serve
options ``--state-store``, ``--state-key``, ``--instance-id``, ``--advertise-url`` and their
``MCP_BRIDGE_*`` variables override them). Every server is wrapped the way single-server mode wraps its
upstream (``mcp_eras.bridge.scaleout.wiring.scale_out``), with its own key prefix in the store
(``mcp-bridge:fleet:<name>``: caches, registry and sessions never mix across servers) and its internal
endpoints under ``/servers/<name>/internal/...``; the instance id is the same for every server.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from typing import Any

from mcp_eras.bridge.config import Settings
from mcp_eras.bridge.fleet.config import ConfigError, Defaults


@dataclass(frozen=True)
class FleetScale:
    store: str
    key: bytes
    instance_id: str
    advertise_url: str | None

    def settings(self, base: Settings) -> Settings:
        return base.model_copy(update={"state_store": self.store, "state_key": self.key, "instance_id": self.instance_id,
                                       "advertise_url": None})

    def prefix(self, name: str) -> str:
        return f"mcp-bridge:fleet:{name}"

    def base_url(self, host: str, port: int) -> str:
        if self.advertise_url:
            return self.advertise_url.rstrip("/")
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}"


def resolve(defaults: Defaults, overrides: dict[str, Any] | None = None) -> FleetScale | None:
    """The fleet's scale-out settings (None: in memory, one instance). ``overrides`` are the serve
    options given (None values are not given). Raises ConfigError with a one-line reason."""
    from mcp_eras.bridge.store import is_shared_url

    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    store = given.get("state_store") or defaults.state_store
    if store == "memory":
        return None
    if not is_shared_url(store):
        raise ConfigError(f"[bridge] state_store wants memory or redis://HOST:PORT/DB, got {store!r}")
    text = given.get("state_key") or defaults.state_key
    if not text:
        raise ConfigError("[bridge] state_store redis://... needs state_key (or --state-key / MCP_BRIDGE_STATE_KEY) "
                          "shared by every instance")
    from mcp_eras.bridge.cli_values import state_key
    from mcp_eras.bridge.clikit import CliError

    try:
        key = state_key(text)
    except CliError as exc:
        raise ConfigError(f"[bridge] state_key: {exc}") from None
    assert key is not None
    instance = given.get("instance_id") or defaults.instance_id or f"{socket.gethostname()}-{os.getpid()}"
    return FleetScale(store, key, instance, given.get("advertise_url") or defaults.advertise_url)

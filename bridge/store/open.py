"""``open_store("memory" | "redis://HOST:PORT/DB" | "rediss://..." | "unix://...")``: the store for a ``--state-store``
value."""

from __future__ import annotations

from mcp_eras.bridge.store import is_shared_url
from mcp_eras.bridge.store.base import Store
from mcp_eras.bridge.store.memory import MemoryStore


def open_store(url: str, prefix: str = "mcp-bridge") -> Store:
    """A store for a ``--state-store`` value. Raises ValueError for an unknown scheme and ImportError
    (naming the extra) when the Redis client is not installed."""
    if url in ("", "memory"):
        return MemoryStore()
    if is_shared_url(url):
        try:
            from mcp_eras.bridge.store.redis_store import RedisStore
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("--state-store redis://... needs the Redis client: pip install 'mcp-eras[redis]'") from exc
        return RedisStore(url, prefix)
    raise ValueError(f"--state-store wants 'memory' or redis://HOST:PORT/DB, got {url!r}")

"""Shared state of a scaled-out bridge: ``open_store("memory" | "redis://HOST:PORT/DB" | "rediss://...")``."""

from __future__ import annotations

from mcp_eras.bridge.store.base import Store, StoreError, Subscription
from mcp_eras.bridge.store.memory import MemoryStore

__all__ = ["MemoryStore", "Store", "StoreError", "Subscription", "open_store", "is_shared_url"]


def is_shared_url(url: str) -> bool:
    return url.startswith(("redis://", "rediss://", "unix://"))


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

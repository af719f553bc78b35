"""Shared state of a scaled-out bridge, behind one interface (``base.Store``): ``memory`` (one process) and
``redis_store`` (Redis or Valkey). ``open.open_store`` picks one for a ``--state-store`` value.

This package module names only the interface and the URL test the CLI needs before anything is opened: the
stores import it back (a submodule import loads its package first), so it imports no store.
"""

from __future__ import annotations

from mcp_eras.bridge.store.base import Store, StoreError, Subscription

__all__ = ["Store", "StoreError", "Subscription", "is_shared_url"]


def is_shared_url(url: str) -> bool:
    return url.startswith(("redis://", "rediss://", "unix://"))

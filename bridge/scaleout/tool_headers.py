"""The 2026 front's ``Mcp-Param-*`` knowledge shared by the instances.

``HttpFront.param_headers`` maps a tool name to its ``x-mcp-header`` annotations, learned from the
``tools/list`` results the front relays (2026-07-28 basic/transports/streamable-http.mdx §Request
Metadata); a ``tools/call`` is checked against them. Behind a balancer the ``tools/list`` and the call
usually reach different instances, so this mapping is written to the store (one entry, with the
discover ``ttlMs``) whenever it changes and merged from it at every heartbeat: a call is checked the same
way on every instance. An instance's own learning wins over the store's copy.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from mcp_eras.bridge.store.base import Store, StoreError

log = logging.getLogger("mcp_bridge.cluster")

SPACE, KEY = "tool-headers", "all"
Annotations = dict[tuple[str, ...], str]


class SharedParamHeaders(dict[str, Annotations]):
    """A drop-in for ``HttpFront.param_headers`` that publishes changes and merges what others learned."""

    def __init__(self, store: Store, ttl_ms: int, spawn: Callable[[Coroutine[Any, Any, None]], None]) -> None:
        super().__init__()
        self.store, self.ttl_ms, self.spawn = store, ttl_ms, spawn
        self._pending = False
        self.learned_here: set[str] = set()

    def __setitem__(self, name: str, value: Annotations) -> None:
        super().__setitem__(name, value)
        self.learned_here.add(name)
        self._changed()

    def pop(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        out = super().pop(name, default)
        self.learned_here.add(name)
        self._changed()
        return out

    def _changed(self) -> None:
        if not self._pending and self.ttl_ms > 0:
            self._pending = True  # one write per relayed tools/list, not one per tool
            self.spawn(self.publish())

    async def publish(self) -> None:
        await asyncio.sleep(0)
        self._pending = False
        data = {name: [[list(path), header] for path, header in ann.items()] for name, ann in self.items()}
        try:
            await self.store.cache_put(SPACE, KEY, data, self.ttl_ms)
        except StoreError as exc:
            log.warning("tool header annotations not shared: %s", exc)

    async def refresh(self) -> None:
        """Merge the store's copy (tools this instance has not listed itself). Raises StoreError."""
        data = await self.store.cache_get(SPACE, KEY) or {}
        for name, pairs in data.items():
            if name in self.learned_here or not isinstance(pairs, list):
                continue
            ann = {tuple(path): header for path, header in pairs if isinstance(path, list) and isinstance(header, str)}
            if ann:
                super().__setitem__(name, ann)
            else:
                super().pop(name, None)

"""Sealed ``requestState`` tokens on the bridge's clock (MRTR, direction A).

The sealing, opening and binding checks are pure (``mcp_eras.bridge.translate.request_state.Sealer``); this shell
reads the wall clock for the expiry when the caller does not pass the time.
"""

from __future__ import annotations

import time
from typing import Any

from mcp_eras.bridge.translate.request_state import Sealer, StateClaims

__all__ = ["StateClaims", "StateSealer"]


def _now_ms() -> int:
    return int(time.time() * 1000)


class StateSealer(Sealer):
    """A ``Sealer`` whose ``seal`` and ``open`` default ``now_ms`` to the wall clock (tokens outlive a process
    restart and may be opened by another instance: a monotonic clock would not do)."""

    def seal(self, *, puc: str, principal: str | None, method: str, digest: str, round: int, now_ms: int | None = None) -> str:
        return super().seal(puc=puc, principal=principal, method=method, digest=digest, round=round,
                            now_ms=_now_ms() if now_ms is None else now_ms)

    def open(self, token: Any, *, principal: str | None, method: str, digest: str, now_ms: int | None = None) -> StateClaims:
        return super().open(token, principal=principal, method=method, digest=digest, now_ms=_now_ms() if now_ms is None else now_ms)

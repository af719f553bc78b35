"""Requests per minute by client era and by upstream era over the last hour, for the dashboard chart.

Pure: time comes in as ``now`` (wall-clock seconds); state is plain data. Only the two protocol eras
are kept (mirrored copies and internal calls are not client traffic).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp_eras.bridge.translate import eras

ERAS = (eras.LEGACY, eras.MODERN)


@dataclass
class EraHistory:
    span: int = 3600
    step: int = 60
    buckets: dict[int, dict[str, int]] = field(default_factory=dict)
    """Minute -> counts keyed ``client:<era>`` / ``upstream:<era>``."""

    @property
    def slots(self) -> int:
        return self.span // self.step

    def add(self, now: float, client_era: str, upstream_era: str, n: int = 1) -> None:
        if client_era not in ERAS:
            return
        slot = int(now // self.step)
        for key in [k for k in self.buckets if k <= slot - self.slots]:
            del self.buckets[key]
        row = self.buckets.setdefault(slot, {})
        row[f"client:{client_era}"] = row.get(f"client:{client_era}", 0) + n
        if upstream_era in ERAS:
            row[f"upstream:{upstream_era}"] = row.get(f"upstream:{upstream_era}", 0) + n

    def series(self, now: float) -> dict[str, Any]:
        """Oldest first, one point per ``step``: ``{"step": s, "end": t, "client": {era: [..]}, "upstream": {era: [..]}}``."""
        last = int(now // self.step)
        slots = range(last - self.slots + 1, last + 1)
        out: dict[str, Any] = {"step": self.step, "end": (last + 1) * self.step, "client": {}, "upstream": {}}
        for kind in ("client", "upstream"):
            for era in ERAS:
                out[kind][era] = [self.buckets.get(s, {}).get(f"{kind}:{era}", 0) for s in slots]
        return out

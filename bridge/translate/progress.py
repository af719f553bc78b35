"""The one progress rule both directions apply before relaying ``notifications/progress``.

2025-11-25 basic/utilities/progress.mdx §Behavior Requirements: the ``progress`` value MUST increase
with each notification (the 2026-07-28 revision keeps the rule). A notification whose value is not a
number, or does not exceed the last one relayed for that token, is dropped rather than forwarded.
"""

from __future__ import annotations

from typing import Any


def advance(last: float | None, progress: Any) -> float | None:
    """The new last value when ``progress`` may be relayed after ``last``; None when it must be dropped."""
    if isinstance(progress, bool) or not isinstance(progress, int | float):
        return None
    if last is not None and progress <= last:
        return None
    return progress

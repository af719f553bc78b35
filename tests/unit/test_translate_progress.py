"""bridge.translate.progress: the one 'progress MUST increase' rule (2025-11-25 basic/utilities/progress.mdx)."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate.progress import advance


@pytest.mark.parametrize(("last", "value", "expected"), [
    (None, 0, 0), (None, 1.5, 1.5), (1, 2, 2), (1, 1.0001, 1.0001),
    (2, 2, None), (2, 1, None),  # not an increase: dropped
    (None, True, None), (None, "3", None), (None, None, None), (1, [2], None),  # not a number
])
def test_advance(last: float | None, value: object, expected: float | None) -> None:
    assert advance(last, value) == expected

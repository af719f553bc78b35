"""Shell <-> core hand-offs on a 2026 tools/call to a legacy (stdio-like) server stay few: one per
event (a decision of the pool, a frame for the call, its end), none for reading fields of a frame."""

from __future__ import annotations

from handoffs import count_handoffs, mrtr_call, plain_call


def test_plain_call_hand_offs() -> None:
    total, by_name = count_handoffs(plain_call)
    assert total <= 5, by_name  # 7 before the machines


def test_mrtr_call_hand_offs() -> None:
    total, by_name = count_handoffs(mrtr_call)
    assert total <= 13, by_name  # 19 before the machines

"""Shell <-> core hand-offs on a 2025 tools/call through the stdio legacy front stay one per event: the
request starts, the session decides, the upstream answers (per round), the client answers, the request ends."""

from __future__ import annotations

from handoffs import count_handoffs
from legacy_front_handoffs import mrtr_call, plain_call


def test_plain_call_hand_offs() -> None:
    total, by_name = count_handoffs(plain_call)
    assert total <= 4, by_name  # 3 before the machines, with the session rules in the shell


def test_mrtr_call_hand_offs() -> None:
    total, by_name = count_handoffs(mrtr_call)
    assert total <= 8, by_name  # 10 before the machines

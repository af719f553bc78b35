"""A stdio child wedged on its input, pure (issue #33): nothing read for a whole window while input waits past the
bound; a slow reader and input below the bound are never wedged."""

from __future__ import annotations

from mcp_eras.bridge.translate.stdin_watch import STALL_GRACE_S, InputWatch

LIMIT = 1000


def test_the_window_is_the_send_wait_and_a_grace_sampled_at_most_every_second() -> None:
    watch = InputWatch.for_send_wait(LIMIT, 8.0)
    assert watch.window == 8.0 + STALL_GRACE_S and watch.tick == 1.0
    assert InputWatch.for_send_wait(LIMIT, 0.5).tick == 0.375


def test_nothing_read_for_the_window_while_input_waits_past_the_bound_is_wedged() -> None:
    watch = InputWatch(LIMIT, 10.0)
    assert watch.verdict(0.0, 500, 2000) == "watching"
    assert watch.verdict(9.9, 500, 2000) == "watching"
    assert watch.verdict(10.0, 500, 2000) == "wedged"
    assert watch.reason(2000) == "it read none of its input for 10 s; 2000 bytes unread"


def test_any_byte_read_starts_the_window_again() -> None:
    watch = InputWatch(LIMIT, 10.0)
    for t in range(0, 60, 5):  # a slow reader: one byte per sample
        assert watch.verdict(float(t), t, 5000) == "watching"
    assert watch.verdict(64.9, 55, 5000) == "watching"
    assert watch.verdict(65.0, 55, 5000) == "wedged"


def test_input_at_or_below_the_bound_ends_the_watch_and_a_later_one_starts_afresh() -> None:
    watch = InputWatch(LIMIT, 10.0)
    assert watch.verdict(0.0, 0, 2000) == "watching"
    assert watch.verdict(5.0, 0, LIMIT) == "clear"
    assert watch.verdict(8.0, 0, 2000) == "watching", "the same read count after a clear is a new window"
    assert watch.verdict(17.0, 0, 2000) == "watching"
    assert watch.verdict(18.0, 0, 2000) == "wedged"

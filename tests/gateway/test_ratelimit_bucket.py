"""The rate limit's pure part: the token bucket, rate specs, which requests count, the refusal."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate import errors
from mcp_eras.bridge.translate.gateway import ratelimit as rl


def test_a_new_bucket_allows_a_burst_then_refuses_with_the_wait() -> None:
    state = None
    allowed = []
    for _ in range(7):
        decision = rl.take(state, 100.0, 1, 2.0, 5)
        state = decision.state
        allowed.append(decision.allowed)
    assert allowed == [True] * 5 + [False] * 2
    assert decision.retry_after == pytest.approx(0.5)  # one token at 2/s
    assert state == (0.0, 100.0)


def test_tokens_come_back_at_the_rate_and_never_above_the_burst() -> None:
    empty = (0.0, 10.0)
    assert not rl.take(empty, 10.4, 1, 2.0, 5).allowed
    half = rl.take(empty, 10.25, 1, 2.0, 5)
    assert not half.allowed and half.retry_after == pytest.approx(0.25)
    later = rl.take(empty, 11.0, 1, 2.0, 5)
    assert later.allowed and later.state == (pytest.approx(1.0), 11.0)
    full = rl.take(empty, 1000.0, 1, 2.0, 5)
    assert full.state == (pytest.approx(4.0), 1000.0)  # capped at 5, one taken


def test_a_clock_that_goes_back_neither_adds_nor_takes_time() -> None:
    decision = rl.take((1.0, 50.0), 49.0, 1, 1.0, 3)
    assert decision.allowed and decision.state == (0.0, 50.0)
    assert not rl.take(decision.state, 49.5, 1, 1.0, 3).allowed


def test_idle_means_full_again() -> None:
    assert rl.idle((0.0, 0.0), 5.0, 1.0, 5)
    assert not rl.idle((0.0, 0.0), 4.9, 1.0, 5)
    assert rl.full_after(2.0, 10) == 5.0


@pytest.mark.parametrize(("spec", "rate"), [("10/s", 10.0), ("120/min", 2.0), ("3600/h", 1.0), (" 1.5 / sec ", 1.5),
                                            ("30/m", 0.5), ("7/hour", 7 / 3600)])
def test_rate_specs(spec: str, rate: float) -> None:
    assert rl.parse_rate(spec) == pytest.approx(rate)


@pytest.mark.parametrize("spec", ["10", "10/d", "/s", "0/s", "-1/s", "ten/s", "10 per s", "2000000/s", ""])
def test_bad_rate_specs_are_named(spec: str) -> None:
    with pytest.raises(ValueError, match="rate"):
        rl.parse_rate(spec)


def test_limits_and_bursts() -> None:
    assert rl.RateLimit.of("10/s") == rl.RateLimit(10.0, 10.0, "10/s")
    assert rl.RateLimit.of("30/min").burst == 1.0  # at least one request
    assert rl.RateLimit.of("10/s", 20).burst == 20.0
    assert rl.limit_of(None, None) is None
    with pytest.raises(ValueError, match="burst must be at least 1"):
        rl.RateLimit.of("10/s", 0)
    with pytest.raises(ValueError, match="burst needs a rate"):
        rl.limit_of(None, 5)


def _req(method: str, params: dict | None = None, rid: int | None = 1) -> dict:
    msg: dict = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if rid is not None:
        msg["id"] = rid
    return msg


def test_which_requests_count() -> None:
    assert rl.counts(_req("tools/call", {"name": "x"}), False)
    assert rl.counts(_req("tools/list"), True)
    assert rl.counts(_req("server/discover"), False)  # a 2026 client's own request
    assert rl.counts(_req("subscriptions/listen"), False)
    # a parked call continued (2026-07-28 basic/patterns/mrtr.mdx): counted when it first came
    assert not rl.counts(_req("tools/call", {"name": "x", "requestState": "abc"}), False)
    assert rl.counts(_req("tools/call", {"name": "x", "requestState": None}), False)
    for method in ("initialize", "ping"):
        assert not rl.counts(_req(method), True) and not rl.counts(_req(method), False)
    assert not rl.counts(_req("notifications/cancelled", rid=None), False)
    assert not rl.counts(_req("tools/call", rid=None), False)
    # what the bridge sends for a 2025 session
    assert not rl.counts(_req("server/discover"), True)
    assert not rl.counts(_req("subscriptions/listen"), True)


def test_anonymous_callers_share_the_servers_bucket() -> None:
    assert rl.bucket_key("a", None) == rl.bucket_key("a", None) != rl.bucket_key("b", None)
    assert rl.bucket_key("a", "p1") != rl.bucket_key("a", "p2") != rl.bucket_key("a", None)
    assert rl.bucket_key("", "p1") == "-:p1"


def test_the_refusal_names_the_limit_and_the_wait() -> None:
    limit = rl.RateLimit.of("10/s", 20)
    answer = rl.limited(7, limit, 0.05)
    assert answer["id"] == 7 and answer["error"]["code"] == errors.LIMIT_REACHED == -32000
    assert answer["error"]["data"] == {"limit": "rate", "retry_after": 1}
    assert "10/s" in answer["error"]["message"] and "burst 20" in answer["error"]["message"]
    assert rl.limited(7, limit, 2.2)["error"]["data"]["retry_after"] == 3
    assert errors.modern_http_status(answer) == 429
    assert rl.retry_after_header(answer) == {"Retry-After": "1"}
    full = rl.buckets_full(8, 100)
    assert full["error"]["data"] == {"limit": "rate_buckets"} and errors.modern_http_status(full) == 503
    assert rl.retry_after_header(full) is None
    assert rl.retry_after_header({"jsonrpc": "2.0", "id": 1, "result": {}}) is None


def test_retry_seconds_round_up_and_never_say_zero() -> None:
    assert [rl.retry_seconds(x) for x in (0.0, 0.001, 1.0, 1.0001, 59.5)] == [1, 1, 1, 2, 60]

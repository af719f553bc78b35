"""A fleet server's delegate generations as pure code (``mcp_eras.bridge.translate.generations``)."""

from __future__ import annotations

import pytest

from mcp_eras.bridge.translate import generations as gen


def test_an_era_verdict_is_stale_after_its_cache_time() -> None:
    assert not gen.era_stale(True, 100.0, 160.0, 60.0)
    assert gen.era_stale(True, 100.0, 160.5, 60.0)
    assert not gen.era_stale(False, 0.0, 1e9, 60.0)  # a configured era is never probed again


@pytest.mark.parametrize(("auto", "built", "closed", "running", "may"), [
    (True, True, False, False, True), (False, True, False, False, False), (True, False, False, False, False),
    (True, True, True, False, False), (True, True, False, True, False),
])
def test_who_may_reprobe(auto: bool, built: bool, closed: bool, running: bool, may: bool) -> None:
    assert gen.may_reprobe(auto, built, closed, running) is may


def test_a_hinted_reprobe_waits_its_interval_and_a_forced_one_does_not() -> None:
    assert not gen.reprobe_due(False, 104.9, 100.0)
    assert gen.reprobe_due(False, 105.0, 100.0)
    assert gen.reprobe_due(True, 100.1, 100.0)
    assert gen.reprobe_due(False, 1.0, 0.0, min_interval=1.0)


def test_a_new_delegate_for_another_era_or_another_http_transport() -> None:
    assert gen.verdict_changed("2025-11-25", "2026-07-28", None)
    assert not gen.verdict_changed("2025-11-25", "2025-11-25", None)
    assert gen.verdict_changed("2025-11-25", "2025-11-25", ("sse", "streamable-http"))
    assert not gen.verdict_changed("2025-11-25", "2025-11-25", ("streamable-http", "streamable-http"))
    assert gen.verdict_changed(None, "2025-11-25", None)  # no delegate yet


def test_only_a_2025_streamable_http_server_is_passed_through() -> None:
    url = "http://docs/mcp"
    assert gen.passthrough_url(url, "2025-11-25", "streamable-http", "auto") == url
    assert gen.passthrough_url(url, "2025-11-25", None, "auto") == url
    assert gen.passthrough_url(url, "2025-11-25", "sse", "streamable-http") is None
    assert gen.passthrough_url(url, "2025-11-25", None, "sse") is None
    assert gen.passthrough_url(url, "2026-07-28", "streamable-http", "auto") is None
    assert gen.passthrough_url(None, "2025-11-25", "streamable-http", "auto") is None


def test_what_the_fleet_reads_of_a_delegates_status() -> None:
    status = {"pid": 40, "restarts": 2, "parked": 3, "transports": [{"pid": 41}, {"pid": None}, "x", {"state": "ready"}]}
    assert gen.pids_of(status) == [41, 40]
    assert gen.pids_of({}) == []
    assert gen.restarts_of(status) == 2 and gen.restarts_of({"restarts": 1.0}) == 1
    assert gen.restarts_of({}) == 0 and gen.restarts_of({"restarts": "2"}) == 0
    assert gen.parked_of(status) == 3 and gen.parked_of({}) == 0 and gen.parked_of({"parked": None}) == 0

"""What the observing layers conclude, as pure code (``mcp_eras.bridge.translate.outcomes``)."""

from __future__ import annotations

from mcp_eras.bridge.translate import outcomes as oc

OK = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}}
ASK = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {}}}
ERR = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad"}}


def test_outcome_labels() -> None:
    assert [oc.outcome_of(r) for r in (OK, ASK, ERR)] == ["ok", "input_required", "error"]
    assert oc.outcome_of({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}) == "ok"
    assert oc.outcome_of({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "incomplete"}}) == "ok"
    assert [oc.result_kind(r) for r in (OK, ASK, ERR)] == ["ok", "input_required", "error"]
    assert oc.result_kind({"id": 1, "result": {"resultType": "incomplete"}}) == "incomplete"
    assert oc.result_kind({"id": 1, "result": {"resultType": ""}}) == "ok"
    assert oc.result_kind({"id": 1, "result": "x"}) == "ok"


def test_the_server_state() -> None:
    assert oc.server_state(True, None) == "ok"
    assert oc.server_state(True, "boom") == "degraded"
    assert oc.server_state(False, "boom") == "down"
    assert oc.server_state(False, None) == "not started"


def test_a_check_stands_for_its_interval() -> None:
    assert oc.check_due(None, 5.0, 1.0)
    assert not oc.check_due(4.5, 5.0, 1.0)
    assert oc.check_due(4.0, 5.0, 1.0)


def test_reachability_verdicts() -> None:
    """A 2025 server answers a 2026 server/discover POST with 400/404/405: it is up, only older."""
    for status in (200, 400, 404, 405, 499):
        assert oc.http_reachability("http://u/mcp", status) == (True, "")
    assert oc.http_reachability("http://u/mcp", 502) == (False, "http://u/mcp answered HTTP 502")
    assert oc.answer_reachability(OK) == (True, "")
    assert oc.answer_reachability(ERR) == (False, "upstream answered -32602: bad")


def test_health_and_readiness_answers() -> None:
    assert oc.health_body(True, "", "stdio: x", {"parked": 0}) == (
        {"status": "ok", "target": "stdio: x", "upstream": {"parked": 0}}, 200)
    assert oc.health_body(False, "gone", "stdio: x", {}) == (
        {"status": "down", "target": "stdio: x", "upstream": {}, "reason": "gone"}, 503)
    assert oc.readiness(True, "") == ("ready\n", 200)
    assert oc.readiness(False, "gone") == ("not ready: gone\n", 503)


def test_upstream_gauges() -> None:
    up, era = oc.upstream_families(True, "2025-11-25")
    assert up[0] == "upstream_up" and up[3] == [({}, 1.0)]
    assert era[3] == [({"era": "2025-11-25"}, 1.0)]
    up, era = oc.upstream_families(False, None)
    assert up[3] == [({}, 0.0)] and era[3] == []


def test_fleet_health_and_readiness() -> None:
    body = {"servers": {"a": {"state": "ok"}, "b": {"state": "down"}, "c": {"state": "degraded"}}}
    assert oc.fleet_health_status(body, strict=False) == 200
    assert body["down"] == ["b", "c"]
    assert oc.fleet_health_status(body, strict=True) == 503
    assert oc.fleet_health_status({"servers": {"a": {"state": "ok"}}}, strict=True) == 200
    assert oc.fleet_readiness(False, []) == ("not ready: config not loaded\n", 503)
    assert oc.fleet_readiness(True, ["b", "a"]) == ("not ready: starting a, b\n", 503)
    assert oc.fleet_readiness(True, []) == ("ready\n", 200)


def test_cluster_families_one_sample_per_instance() -> None:
    assert oc.cluster_families({}) == []
    families = oc.cluster_families({"": ("b1", {"forwarded_out": 3})})
    assert [f[0] for f in families] == [m for _k, m, _h in oc.CLUSTER_METRICS]
    assert families[0][3] == [({"instance": "b1"}, 3.0)]
    assert families[1][3] == [({"instance": "b1"}, 0.0)]
    fleet = oc.cluster_families({"docs": ("b1", {}), "code": ("b2", {"store_errors": 2})})
    store_errors = next(f for f in fleet if f[0] == "cluster_store_errors_total")
    assert store_errors[3] == [({"instance": "b1", "server": "docs"}, 0.0), ({"instance": "b2", "server": "code"}, 2.0)]

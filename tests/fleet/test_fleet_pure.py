"""Pure parts of fleet mode: Prometheus exposition, call classification, trace context, probe
features and verdicts, verify normalization and diffs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from mcp_eras.bridge.fleet import passthrough, probe, verify
from mcp_eras.bridge.fleet.metrics import Metrics, parse_text
from mcp_eras.bridge.layers import managed


def test_metrics_exposition_round_trips() -> None:
    m = Metrics()
    m.counter("requests_total", "Requests.", ("server", "method"))
    m.histogram("latency_seconds", "Latency.", ("server",), buckets=(0.1, 1.0))
    m.inc("requests_total", {"server": 'a"b', "method": "tools/call"})
    m.inc("requests_total", {"server": 'a"b', "method": "tools/call"}, 2)
    for v in (0.05, 0.5, 5.0):
        m.observe("latency_seconds", {"server": "a"}, v)
    text = m.render([("parked_calls", "gauge", "Parked.", [({"server": "a\nb"}, 3.0)])])
    assert "# TYPE mcp_bridge_requests_total counter" in text
    assert 'mcp_bridge_requests_total{server="a\\"b",method="tools/call"} 3' in text
    samples = parse_text(text)
    buckets = {lbl["le"]: v for lbl, v in samples["mcp_bridge_latency_seconds_bucket"]}
    assert buckets == {"0.1": 1, "1": 2, "+Inf": 3}
    assert samples["mcp_bridge_latency_seconds_count"] == [({"server": "a"}, 3.0)]
    assert samples["mcp_bridge_latency_seconds_sum"] == [({"server": "a"}, 5.55)]
    assert samples["mcp_bridge_parked_calls"] == [({"server": "a\nb"}, 3.0)]
    m.inc("requests_total", {"server": "z", "method": "tools/list"})
    assert m.totals("requests_total", "server") == {'a"b': 3, "z": 1}
    assert m.totals("requests_total", "method", server="z") == {"tools/list": 1}
    with pytest.raises(ValueError):
        m.inc("requests_total", {"server": "a"})


def test_histogram_buckets_count_a_value_at_a_bound_in_that_bucket() -> None:
    """Prometheus ``le`` buckets: a value equal to a bound counts in it; past the last bound only in +Inf."""
    m = Metrics()
    m.histogram("latency_seconds", "Latency.", ("server",), buckets=(1.0, 0.1))  # given unsorted
    for v in (0.0, 0.1, 0.10000001, 1.0, 1.5):
        m.observe("latency_seconds", {"server": "a"}, v)
    buckets = {lbl["le"]: v for lbl, v in parse_text(m.render())["mcp_bridge_latency_seconds_bucket"]}
    assert buckets == {"0.1": 2, "1": 4, "+Inf": 5}


def test_metrics_by_label_values_render_as_by_label_dicts() -> None:
    """The hot path's ``inc_values``/``observe_values`` (label values in label order) land in the same series
    as ``inc``/``observe`` with label dicts, and refuse a wrong number of values."""
    by_dict, by_values = Metrics(), Metrics()
    for m in (by_dict, by_values):
        m.counter("requests_total", "Requests.", ("client_era", "outcome"))
        m.histogram("latency_seconds", "Latency.", ("client_era",), buckets=(0.1, 1.0))
    for era, outcome, seconds in (("2026-07-28", "ok", 0.05), ("2026-07-28", "ok", 2.0), ("2025-11-25", "error", 0.5)):
        by_dict.inc("requests_total", {"client_era": era, "outcome": outcome})
        by_dict.observe("latency_seconds", {"client_era": era}, seconds)
        by_values.inc_values("requests_total", (era, outcome))
        by_values.observe_values("latency_seconds", (era,), seconds)
    by_values.inc("requests_total", {"client_era": "2025-11-25", "outcome": "error"})  # both ways share one series
    by_dict.inc_values("requests_total", ("2025-11-25", "error"))
    assert by_values.render() == by_dict.render()
    assert by_values.value("requests_total", {"client_era": "2025-11-25", "outcome": "error"}) == 2
    with pytest.raises(ValueError):
        by_values.inc_values("requests_total", ("2026-07-28",))
    with pytest.raises(ValueError):
        by_values.observe_values("latency_seconds", ("2026-07-28", "extra"), 1.0)


def test_a_recorder_lands_where_inc_values_and_observe_values_do() -> None:
    """``Metrics.recorder`` (one call per relayed call for both families): the same series and buckets as the two
    methods, for label sets seen before and new ones, on every bucket edge."""
    by_methods, by_recorder = Metrics(), Metrics()
    for m in (by_methods, by_recorder):
        m.counter("requests_total", "Requests.", ("client_era", "outcome"))
        m.histogram("latency_seconds", "Latency.", ("client_era",), buckets=(0.1, 1.0))
    record = by_recorder.recorder("requests_total", "latency_seconds")
    for era, outcome, seconds in (("2026-07-28", "ok", 0.05), ("2026-07-28", "ok", 0.1), ("2026-07-28", "error", 1.0),
                                  ("2025-11-25", "error", 0.5), ("2025-11-25", "ok", 2.0), ("2026-07-28", "ok", 7.0)):
        by_methods.inc_values("requests_total", (era, outcome))
        by_methods.observe_values("latency_seconds", (era,), seconds)
        record((era, outcome), (era,), seconds)
    assert by_recorder.render() == by_methods.render()
    assert by_recorder.value("requests_total", {"client_era": "2026-07-28", "outcome": "ok"}) == 3
    with pytest.raises(ValueError):
        record(("2026-07-28",), ("2026-07-28",), 1.0)


def test_outcomes_and_era_typical_failures() -> None:
    assert managed.outcome_of({"id": 1, "result": {"resultType": "complete"}}) == "ok"
    assert managed.outcome_of({"id": 1, "result": {"resultType": "input_required"}}) == "input_required"
    assert managed.outcome_of({"id": 1, "error": {"code": -32602, "message": "x"}}) == "error"
    assert managed.era_typical_failure({"error": {"code": -32602, "message": "v", "data": {"supported": ["2026-07-28"]}}})
    assert managed.era_typical_failure({"error": {"code": -32601, "message": "Method not found"}})
    assert not managed.era_typical_failure({"error": {"code": -32602, "message": "bad arguments"}})
    assert not managed.era_typical_failure({"result": {}})


def test_trace_context_is_copied_into_meta() -> None:
    trace = {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "baggage": "k=v"}
    req = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", "_meta": {"baggage": "mine"}}}
    out = managed.with_trace_meta(req, trace)
    assert out["params"]["_meta"] == {"baggage": "mine", "traceparent": trace["traceparent"]}
    assert req["params"]["_meta"] == {"baggage": "mine"}  # not mutated
    assert managed.with_trace_meta(req, {}) is req
    assert managed.trace_id(trace) == "4bf92f3577b34da6a3ce929d0e0e4736"


def test_probe_features_by_era() -> None:
    legacy = probe.features("2025-11-25", {"logging": {}, "resources": {"subscribe": True}, "tools": {"listChanged": True},
                                           "experimental": {"acme/x": {}}})
    by_name = {f["name"]: f["status"] for f in legacy}
    assert by_name == {"server-requests": "translated", "subscriptions": "translated", "logging": "translated",
                       "sessions": "translated", "experimental:acme/x": "untranslatable"}
    modern = probe.features("2026-07-28", {"tools": {}, "tasks": {}, "completions": {}},
                            [{"name": "t", "execution": {"taskSupport": "required"}}])
    by_name = {f["name"]: f["status"] for f in modern}
    assert by_name == {"input-required": "translated", "completions": "native", "tasks": "untranslatable",
                       "task-only-tools": "untranslatable"}


def _server(name: str, era: str | None, ok: bool = True, untranslatable: bool = False) -> dict:
    return {"name": name, "target": "x", "ok": ok, "error": None if ok else "boom", "era": era, "transport": "stdio",
            "versions": [era] if ok and era else [], "serverInfo": {"name": name, "version": "1"} if ok else None,
            "capabilities": {}, "counts": {"tools": 1, "prompts": None, "resources": 0, "resourceTemplates": 0} if ok else {},
            "features": [{"name": "tasks", "status": "untranslatable", "detail": "d"}] if untranslatable else [], "elapsed_ms": 3}


def test_probe_verdicts_table_and_schema() -> None:
    servers = [_server("a", "2025-11-25"), _server("b", "2026-07-28", untranslatable=True)]
    report = {"bridge": "mcp-bridge", "generated_at": "2026-01-01T00:00:00Z", "servers": servers, "summary": probe.summarize(servers)}
    probe.validate(report)
    assert probe.exit_code(report) == 0
    assert probe.exit_code(report, fail_on_untranslatable=True) == 1
    assert probe.exit_code(report, expect_era="2026-07-28") == 1
    table = probe.render_table(report)
    assert "2 servers: 2 answered (1 on 2026-07-28, 1 on 2025-11-25), 0 failed" in table
    failed = [*servers, _server("c", None, ok=False)]
    report = {**report, "servers": failed, "summary": probe.summarize(failed)}
    probe.validate(report)
    assert probe.exit_code(report) == 1
    broken = json.loads(json.dumps(report))
    broken["servers"][0]["era"] = "2024-11-05"
    with pytest.raises(jsonschema.ValidationError):
        probe.validate(broken)
    broken = json.loads(json.dumps(report))
    broken["servers"][0]["error"] = "ok but with an error?"
    with pytest.raises(jsonschema.ValidationError):
        probe.validate(broken)


def test_verify_normalizes_envelope_and_order() -> None:
    a = {"name": "t", "description": "d", "inputSchema": {"type": "object", "required": ["b", "a"], "title": "x",
                                                          "properties": {"b": {"type": "integer"}, "a": {"type": "string"}}},
         "_meta": {"x": 1}}
    b = {"name": "t", "description": "d", "inputSchema": {"type": "object", "required": ["a", "b"],
                                                          "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
         "annotations": {}}
    assert verify.compare_lists("tools", [a], [b]) == []
    c = {**b, "description": "D"}
    diffs = verify.compare_lists("tools", [a], [c, {"name": "u"}])
    assert [(d.item, d.kind) for d in diffs] == [("t", "changed"), ("u", "only-new")]
    assert verify.normalize_result({"resultType": "complete", "ttlMs": 0, "content": [{"type": "text", "text": "5", "_meta": {}}]}) == \
        {"content": [{"text": "5", "type": "text"}]}


def test_verify_text_report_is_readable() -> None:
    report = verify.Report("old", "new", {"tools": 2})
    report.differences = verify.compare_lists("tools", [{"name": "echo", "description": "Echo."}],
                                              [{"name": "echo", "description": "Echo it."}])
    text = verify.render_text(report)
    assert "DIVERGENT: 1 difference(s)" in text
    assert "~ tools 'echo': changed" in text
    assert '-  "description": "Echo."' in text and '+  "description": "Echo it."' in text


def test_verify_call_files(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    path.write_text('{"tool": "add", "arguments": {"a": 1, "b": 2}}\n\n{"method": "resources/read", "params": {"uri": "m://x"}}\n')
    calls = verify.load_calls(path)
    assert calls == [{"method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 2}}},
                     {"method": "resources/read", "params": {"uri": "m://x"}}]
    assert verify.call_label(calls[0]) == 'tools/call add {"a": 1, "b": 2}'
    path.write_text('[{"params": {}}]')
    with pytest.raises(ValueError, match="call 1 needs"):
        verify.load_calls(path)
    tools = [{"name": "ro", "annotations": {"readOnlyHint": True}, "inputSchema": {"type": "object"}},
             {"name": "ro_args", "annotations": {"readOnlyHint": True}, "inputSchema": {"required": ["x"]}},
             {"name": "rw", "inputSchema": {}}]
    assert verify.read_only_calls(tools) == [{"method": "tools/call", "params": {"name": "ro", "arguments": {}}}]


def test_passthrough_classification_and_sse_outcome() -> None:
    assert passthrough.classify_post(b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}')[1] == "tools/call"
    assert passthrough.classify_post(b'{"jsonrpc":"2.0","id":1,"result":{}}')[1] == "response"
    assert passthrough.classify_post(b'[{"method":"a"}]')[1] == "batch"
    assert passthrough.classify_post(b"nope") == (None, "invalid")
    assert passthrough.outcome_of_body(200, "application/json", b'{"id":1,"error":{"code":-1}}') == "error"
    assert passthrough.outcome_of_body(202, "", b"") == "ok"
    assert passthrough.outcome_of_body(404, "application/json", b"{}") == "http_404"
    scan = passthrough.SseOutcome()
    for chunk in (b'event: message\ndata: {"method":"notifications/progress"}\n\nda', b'ta: {"id": 3, "err', b'or": {"code": -32002}}\n\n'):
        scan.feed(chunk)
    assert scan.outcome == "error"
    scan = passthrough.SseOutcome()
    scan.feed(b'data: {"id": 3, "result": {}}\n')
    assert scan.outcome == "ok"


def test_structured_log_lines() -> None:
    import logging

    from mcp_eras.bridge.cli_logs import JsonFormatter

    record = logging.LogRecord("mcp_bridge.fleet", logging.INFO, __file__, 1, "server %s swapped", ("a",), None)
    record.event, record.server, record.generation = "swap", "a", 2
    line = json.loads(JsonFormatter().format(record))
    assert line["msg"] == "server a swapped" and line["level"] == "info" and line["logger"] == "mcp_bridge.fleet"
    assert (line["event"], line["server"], line["generation"]) == ("swap", "a", 2)
    assert line["ts"].endswith("Z") and "args" not in line

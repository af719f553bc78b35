"""The pure halves of staged upgrades: mirrorable requests, canary assignment, rollback window
arithmetic (time passed in), answer comparison, the era history, the guard's decisions and the
dashboard's HTML."""

from __future__ import annotations

import json

import jsonschema
import pytest

from mcp_eras.bridge.fleet import dashboard, guard, staging, web
from mcp_eras.bridge.fleet.config import ConfigError, parse
from mcp_eras.bridge.fleet.history import EraHistory

LEGACY, MODERN = "2025-11-25", "2026-07-28"


def call(name: str) -> dict:
    return {"method": "tools/call", "params": {"name": name, "arguments": {}}}


def test_mirrorable_requests() -> None:
    ro = staging.read_only_tools([{"name": "get", "annotations": {"readOnlyHint": True}},
                                  {"name": "put", "annotations": {"readOnlyHint": False}}, {"name": "plain"}, "junk"])
    assert ro == {"get"}
    for method in ("tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read",
                   "prompts/get", "completion/complete"):
        assert staging.mirrorable({"method": method}, ro, set())
    assert staging.mirrorable(call("get"), ro, set())
    assert staging.mirrorable(call("plain"), ro, {"plain"})
    assert not staging.mirrorable(call("put"), ro, set())
    assert not staging.mirrorable(call("plain"), ro, set())
    assert not staging.mirrorable({"method": "tools/call", "params": {"name": 3}}, ro, {"3"})
    for method in ("subscriptions/listen", "server/discover", "logging/setLevel", "ping"):
        assert not staging.mirrorable({"method": method}, ro, set())


def test_canary_assignment_is_stable_uniform_and_monotonic() -> None:
    keys = [f"p:{i}" for i in range(20_000)]
    assert all(0 <= staging.bucket(k) < 1 for k in keys[:100])
    assert staging.bucket("p:x") == staging.bucket("p:x")
    share = sum(staging.side_for(k, 0.25) == "canary" for k in keys) / len(keys)
    assert abs(share - 0.25) < 0.015
    at_10 = {k for k in keys if staging.side_for(k, 0.10) == "canary"}
    at_30 = {k for k in keys if staging.side_for(k, 0.30) == "canary"}
    assert at_10 < at_30  # raising the weight only moves callers to the canary
    assert all(staging.side_for(k, 0.0) == "primary" for k in keys[:100])
    assert all(staging.side_for(k, 1.0) == "canary" for k in keys[:100])
    assert staging.sticky_key("abc", "sid") == "p:abc" and staging.sticky_key(None, "sid") == "s:sid"
    assert staging.sticky_key(None, None) == "anonymous"
    assert staging.session_side(0.5, "s:x", "canary") == "canary"
    assert staging.session_side(0.0, "s:x", "canary") == "primary"
    assert staging.session_side(1.0, "s:x", None) == "canary"


def test_window_slides_with_the_time_given() -> None:
    w = staging.Window(span=10.0)
    w.add(100.0, canary=5, canary_errors=1)
    w.add(105.5, canary=5, primary=3)
    assert w.totals(105.9) == {"canary": 10, "canary_errors": 1, "primary": 3, "primary_errors": 0, "compared": 0, "diverged": 0}
    assert w.totals(109.9)["canary"] == 10
    assert w.totals(110.0)["canary"] == 5  # the bucket of t=100 left the 10 s window
    assert w.totals(116.0)["canary"] == 0
    w.add(200.0, canary=1)
    assert list(w.buckets) == [200]  # old buckets are dropped as time moves on
    assert staging.Window.from_json(json.loads(json.dumps(w.to_json()))) == w


def test_rollback_verdicts() -> None:
    policy = staging.RollbackPolicy(max_error_rate=0.05, min_requests=50, max_divergence=0.01)
    base = {"canary": 0, "canary_errors": 0, "primary": 0, "primary_errors": 0, "compared": 0, "diverged": 0}
    assert staging.rollback_reason({**base, "canary": 49, "canary_errors": 49}, policy) is None  # too few yet
    assert staging.rollback_reason({**base, "canary": 50, "canary_errors": 2}, policy) is None  # 4%
    reason = staging.rollback_reason({**base, "canary": 50, "canary_errors": 3}, policy)
    assert reason is not None and reason.startswith("error rate 6.0%")
    # judged against the old server's rate over the same window
    assert staging.rollback_reason({**base, "canary": 100, "canary_errors": 10, "primary": 100, "primary_errors": 8}, policy) is None
    assert staging.rollback_reason({**base, "canary": 50, "compared": 200, "diverged": 2}, policy) is None  # 1.0%
    reason = staging.rollback_reason({**base, "canary": 50, "compared": 200, "diverged": 3}, policy)
    assert reason is not None and reason.startswith("divergence 1.5%")
    assert staging.rollback_reason({**base, "canary": 50, "compared": 10, "diverged": 10},
                                   staging.RollbackPolicy(min_requests=50)) is None  # divergence not checked


def ok(result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "result": result}


def test_compare_uses_verify_normalisation_and_the_accept_list() -> None:
    old = ok({"tools": [{"name": "b", "inputSchema": {"type": "object", "required": ["y", "x"]}},
                        {"name": "a", "inputSchema": {"type": "object"}}], "_meta": {"k": 1}, "resultType": "complete"})
    new = ok({"tools": [{"name": "a", "inputSchema": {"type": "object", "title": "aArguments"}},
                        {"name": "b", "inputSchema": {"type": "object", "required": ["x", "y"]}}], "nextCursor": None})
    assert staging.compare("tools/list", old, new) is None
    a = ok({"content": [{"type": "text", "text": "5"}], "isError": False, "structuredContent": {"at": 1, "v": 5}})
    b = ok({"content": [{"type": "text", "text": "5"}], "isError": False, "structuredContent": {"at": 2, "v": 5}, "ttlMs": 0})
    diff = staging.compare("tools/call", a, b)
    assert diff is not None and '-    "at": 1,' in diff and '+    "at": 2,' in diff
    assert staging.compare("tools/call", a, b, ["structuredContent.at"]) is None
    assert staging.compare("tools/call", ok({"resultType": "input_required", "requestState": "x1"}),
                           ok({"resultType": "input_required", "requestState": "y2"})) is None
    err = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad", "data": {"trace": 1}}}
    assert staging.compare("tools/call", err, {**err, "id": 9, "error": {**err["error"], "data": None}}) is None
    assert staging.compare("tools/call", err, a) is not None
    assert staging.drop_paths({"c": [{"t": 1, "u": 2}, {"t": 3}]}, [["c", "*", "t"]]) == {"c": [{"u": 2}, {}]}
    assert staging.is_failure(err) and staging.is_failure(ok({"isError": True})) and not staging.is_failure(a)
    big = staging.compare("tools/call", ok({"v": list(range(300))}), ok({"v": [-i for i in range(300)]}))
    assert big is not None and len(big) == staging.DIFF_LINES_MAX + 1 and big[-1].startswith("...")


def test_era_history_keeps_one_hour_per_minute() -> None:
    h = EraHistory()
    h.add(60_000.0, LEGACY, LEGACY)
    h.add(60_030.0, MODERN, LEGACY, n=2)
    h.add(60_030.0, "shadow", MODERN)  # mirrored copies are not client traffic
    h.add(63_540.0, MODERN, MODERN)
    s = h.series(63_590.0)
    assert len(s["client"][LEGACY]) == 60 and s["step"] == 60
    assert s["client"][LEGACY][0] == 1 and s["client"][MODERN][0] == 2 and s["upstream"][LEGACY][0] == 3
    assert s["client"][MODERN][-1] == 1 and s["upstream"][MODERN] == [0] * 59 + [1]
    assert sum(h.series(63_600.0)["client"][LEGACY]) == 0  # an hour later it is gone


def test_guard_decisions() -> None:
    assert guard.host_allowed("127.0.0.1:8808", []) and guard.host_allowed("localhost", [])
    assert guard.host_allowed("[::1]:80", []) and guard.host_allowed("LOCALHOST:1", [])
    assert not guard.host_allowed("evil.example", []) and guard.host_allowed(None, [])  # HTTP/1.0: no Host
    assert not guard.host_allowed("127.0.0.1.evil.example", []) and not guard.host_allowed("127.0.0.1:x", [])
    assert guard.host_allowed("bridge.internal:8808", ["bridge.internal"]) and guard.host_allowed("evil.example", ["*"])
    args = {"client": "127.0.0.1", "origin": None, "method": "POST", "content_type": "application/json",
            "token": "t", "expected": "t"}
    assert guard.admin_verdict(**args) is None
    assert guard.admin_verdict(**{**args, "client": "10.0.0.2"})[0] == 403
    assert guard.admin_verdict(**{**args, "origin": "https://evil.example"})[0] == 403
    assert guard.admin_verdict(**{**args, "origin": "http://localhost:3000"}) is None
    assert guard.admin_verdict(**{**args, "content_type": "application/x-www-form-urlencoded"})[0] == 403
    assert guard.admin_verdict(**{**args, "content_type": "text/plain;charset=UTF-8"})[0] == 403
    assert guard.admin_verdict(**{**args, "token": "u"})[0] == 401
    assert guard.admin_verdict(**{**args, "token": None})[0] == 401
    assert guard.admin_verdict(**{**args, "expected": None})[0] == 403
    assert guard.bearer("Bearer abc") == "abc" and guard.bearer("Basic abc") is None


def test_staging_config_keys() -> None:
    cfg = parse('[servers.old]\ncommand = "x"\nshadow = "new"\nshadow_tools = ["t"]\n'
                'canary = { to = "new", weight = 0.25 }\nrollback = { max_error_rate = 0.1, min_requests = 20 }\n'
                '[servers.new]\ncommand = "y"\n')
    old = cfg.servers["old"]
    assert old.canary is not None and old.canary.weight == 0.25 and old.rollback is not None and old.rollback.min_requests == 20
    for bad in ('shadow = "nope"', 'shadow = "old"', 'canary = { to = "new", weight = 1.5 }', 'canary = { weight = 0.1 }'):
        with pytest.raises(ConfigError):
            parse(f'[servers.old]\ncommand = "x"\n{bad}\n[servers.new]\ncommand = "y"\n')


def status_doc() -> dict:
    series = {LEGACY: [0] * 59 + [4], MODERN: [1] * 60}
    return {"generated_at": "2026-01-01T00:00:00Z", "config": "fleet.toml", "loaded_at": 1.0, "divergences": 1,
            "history": {"step": 60, "end": 3600.0, "client": series, "upstream": series},
            "servers": [{"name": "old", "era": LEGACY, "configured_era": "auto", "transport": "stdio", "target": "s.py <b>",
                         "state": "ok", "restarts": 0, "generation": 1, "inflight": 0, "last_error": None,
                         "requests_by_client_era": {LEGACY: 4, MODERN: 60},
                         "shadow": {"twin": "new", "mirrored": 10, "matched": 9, "diverged": 1, "match_rate": 0.9,
                                    "skipped": {}, "pending": 0, "read_only_tools": ["get"]},
                         "canary": {"to": "new", "weight": 0.0, "configured_weight": 0.25, "state": "rolled back",
                                    "rollback_reason": "error rate 9.0%", "rolled_back_at": 2.0, "share": 0.2,
                                    "requests": {"canary": 2, "primary": 8},
                                    "window": {"canary": 0, "canary_errors": 0, "primary": 0, "primary_errors": 0,
                                               "compared": 0, "diverged": 0}}}]}


def test_status_schema_and_dashboard_html() -> None:
    doc = status_doc()
    jsonschema.validate(doc, web.status_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**doc, "servers": [{**doc["servers"][0], "state": "fine"}]}, web.status_schema())
    page = dashboard.render(doc, [{"server": "old", "twin": "new", "method": "tools/call", "tool": "get",
                                   "params": {"name": "get"}, "diff": ["--- OLD", "+++ NEW", "-  1", "+  2"]}])
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert 'http-equiv="refresh"' in page and 'id="era-chart-client"' in page and 'id="era-chart-upstream"' in page
    assert "s.py &lt;b&gt;" in page and "<b>" not in page
    assert "rolled back" in page and "90.0% match" in page and '<span class="del">-  1</span>' in page


def test_decision_modules_stay_pure() -> None:
    """No event loop, clock, network or web framework in the decision modules (time comes in as ``now``)."""
    import ast
    from pathlib import Path

    import mcp_eras.bridge.fleet as pkg

    banned = {"asyncio", "anyio", "time", "socket", "httpx", "starlette", "random", "threading"}
    for name in ("staging", "normalize", "history", "dashboard", "metrics"):
        tree = ast.parse((Path(pkg.__file__).parent / f"{name}.py").read_text())
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert not imported & banned, (name, imported & banned)
        fleet_deps = {(n.module or "") for n in ast.walk(tree)
                      if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("mcp_eras.bridge")}
        # the fleet package, or the bridge's pure core (``translate``: no I/O, tests/unit/test_translate_purity.py)
        pure = {d for d in fleet_deps if d == "mcp_eras.bridge.translate" or d.startswith("mcp_eras.bridge.translate.")}
        assert fleet_deps - pure <= {"mcp_eras.bridge.fleet", "mcp_eras.bridge"}, (name, fleet_deps)
